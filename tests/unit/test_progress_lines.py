"""The progress display off a terminal (CI, a pipe): a line per tenth of each phase, not one per
unit, and no carriage returns; on a terminal it redraws one line."""

from __future__ import annotations

import io

from judgeaudit.audit import events as ev
from judgeaudit.cli.display import ProgressDisplay

PACING = {"sim": {"mode": "adaptive", "rps": None, "rpm": None, "tpm": None, "rate_limited": 0}}


def progress(phase: ev.Phase, done: int, total: int) -> ev.Progress:
    return ev.Progress(phase, done, total, done, 10 * done, 0.0, 0, 0, 1.0, 9.0, 0.0, {}, PACING)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_a_phase_of_1000_units_prints_11_lines() -> None:
    stream = io.StringIO()
    show = ProgressDisplay(stream)
    for done in range(1, 1001):
        show(progress("judging", done, 1000))
    for done in range(1, 51):
        show(progress("trajectories", done, 50))
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    judging = [line.split("]")[1].split()[0] for line in lines if line.startswith("judging")]
    assert judging == ["1/1000", *(f"{k}00/1000" for k in range(1, 10)), "1000/1000"]
    assert len([line for line in lines if line.startswith("trajectories")]) == 11


def test_on_a_terminal_the_status_line_is_redrawn() -> None:
    stream = Terminal()
    show = ProgressDisplay(stream)
    for done in range(1, 101):
        show(progress("judging", done, 100))
    text = stream.getvalue()
    assert text.count("\r") == 100 and text.count("\n") == 1

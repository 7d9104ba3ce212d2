"""Two watchers of the runner's events: a progress display (one rewritten line on a terminal,
a line per tenth of each phase elsewhere) and JSON lines."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from judgeaudit.audit import events as ev
from judgeaudit.credentials import scrub_content


class JsonLinesDisplay:
    """One JSON object per event (raw judge output included), for pipes and CI logs."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout  # looked up now, not when the module was imported

    def __call__(self, event: ev.Event) -> None:
        line = json.dumps(ev.event_json(event), ensure_ascii=False, default=str)
        self.stream.write(scrub_content(line) + "\n")  # judge replies quote what they were shown
        self.stream.flush()


def limit_text(event: ev.Progress) -> str:
    """The rate limits in force, e.g. `` limit judge 48.6 req/s (adaptive, 12 x 429)``."""
    parts = []
    for name, pacing in event.rate_limits.items():
        rates = [f"{pacing['rps']:.1f} req/s"] if pacing.get("rps") is not None else []
        rates += [f"{pacing['tpm'] / 1000:g}k tok/min"] if pacing.get("tpm") else []
        if not rates:
            continue
        refused = f", {pacing['rate_limited']} x 429" if pacing.get("rate_limited") else ""
        parts.append(f"{name} {' + '.join(rates)} ({pacing['mode']}{refused})")
    return f" limit {'; '.join(parts)}" if parts else ""


class ProgressDisplay:
    """A single rewritten status line on a terminal; notable events on their own lines. Off a
    terminal (CI, a pipe, a log file) the status is a line of its own at each tenth of a phase,
    at most 11 a phase, rather than one per unit."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.live = _isatty(self.stream)
        self._tenths: dict[str, int] = {}  # each phase's last tenth shown (off a terminal)

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.RunStarted):
            verb = "resuming" if event.resumed else "starting"
            self._line(
                f"{verb} run {event.run_id}: {event.trajectories_done}/"
                f"{event.trajectories_total} trajectories and {event.pairs_done}/"
                f"{event.pairs_total} pairs already stored"
            )
            for warning in event.warnings:
                self._line(f"warning: {warning}")
        elif isinstance(event, ev.Progress):
            width = 24
            filled = int(width * event.done / event.total) if event.total else width
            eta = "--" if event.eta_s is None else f"{event.eta_s:4.0f}s"
            cost = f" ${event.cost_usd:.4f}" if event.cost_usd else ""
            status = (
                f"{event.phase:<12} [{'#' * filled}{'.' * (width - filled)}] {event.done}/"
                f"{event.total} eta {eta} {event.calls_per_s:5.0f} calls/s "
                f"{event.tokens / 1000:7.0f}k tok{cost} retries {event.retries} "
                f"failed {event.failures}{limit_text(event)}"
            )
            if not self.live:
                tenth = 10 * event.done // event.total if event.total else 10
                if tenth > self._tenths.get(event.phase, -1):
                    self._tenths[event.phase] = tenth
                    self._line(status)
                return
            self.stream.write(f"\r{status}  ")
            self.stream.flush()
            if event.done == event.total:
                self.stream.write("\n")
        elif isinstance(event, ev.UnitFailed):
            self._line(f"failed {event.unit}: {event.message}")
        elif isinstance(event, ev.RunFinished):
            state = (
                "complete" if event.complete else "INCOMPLETE (rerun the same command to finish)"
            )
            self._line(f"run {event.run_id} {state} in {event.elapsed_s:.1f}s -> {event.out_dir}")

    def _line(self, text: str) -> None:
        self.stream.write(("\r" if self.live else "") + f"{text}\n")  # over the status line
        self.stream.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or bare stream
        return False

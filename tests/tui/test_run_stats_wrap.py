"""The Run screen's figures line breaks between figures, never inside one: at 120 columns it
split `limits: sim` from its `31/32` (a new user's finding), at 80 inside a figure too."""

from __future__ import annotations

import asyncio
import re
import time

from judgeaudit.audit import events as ev
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.run import RunScreen
from tests.tui.helpers import make_app, painted, press, settle

#: every figure the line shows, each as it reads whole
FIGURE = re.compile(
    r"\w+: \d+/\d+|whole run \d+/\d+, ETA \S+|(\d+|—) calls/s|\d+k tokens|\$[\d.]+"
    r"|retries \d+|failed \d+|limits:( \S+ \d+/\d+)+"
)


def test_no_figure_is_split_across_lines(isolated: ProfileStore) -> None:
    # the figures the new user saw at 120 columns, as the run's progress event carries them
    progress = ev.Progress(
        phase="trajectories",
        done=199,
        total=504,
        calls=2000,
        tokens=272_000,
        cost_usd=0.0,
        retries=0,
        failures=0,
        elapsed_s=7.0,
        calls_per_s=293.0,
        eta_s=20.0,
        limits={"sim": [31, 32]},
    )

    async def go() -> dict[int, list[str]]:
        rows: dict[int, list[str]] = {}
        app = make_app(isolated)
        async with app.run_test(size=(120, 40)) as pilot:
            await press(pilot, "f3")
            screen = app.screen
            assert isinstance(screen, RunScreen)
            screen.run.start(0, 504, 0, 1260)
            screen.run.update("trajectories", 199, 504, time.monotonic())
            screen.last_progress = progress
            screen.show_stats()
            for width, height in ((120, 40), (80, 24)):
                await pilot.resize_terminal(width, height)
                await settle(pilot)
                shown = [row.strip() for row in painted(app)]
                first = next(i for i, row in enumerate(shown) if row.startswith("trajectories:"))
                last = next(i for i, row in enumerate(shown) if row.startswith("agent A"))
                rows[width] = shown[first:last]
        return rows

    for width, lines in asyncio.run(go()).items():
        pieces = [piece for line in lines for piece in line.split(" · ")]
        split = [piece for piece in pieces if not FIGURE.fullmatch(piece)]
        assert not split, f"at {width} columns a figure is split across {lines}"
        assert any(piece.startswith("whole run 199/1764") for piece in pieces), lines
        assert "limits: sim 31/32" in pieces, lines

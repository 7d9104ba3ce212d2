"""Picking other runs clears the comparison on screen, as typing another A or B does.

After ctrl+t, typing into A or B took the gate's outcome and the drift rows off the screen (they
were of runs the fields no longer named), but `a` or `b` on another run of the picker, or `x`,
kept them: a FAILED or PASSED of two runs beside marks naming two others, until ctrl+t. Other
picks now clear the comparison the same way (`tests/tui/test_runs_picks_and_views.py` has the
picks themselves)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import Input

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.fit_table import FitTable
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.tui.helpers import (
    SIZE,
    SMALL,
    make_app,
    painted,
    press,
    runs_listed,
    settle,
)

GATE = "gate (--fail-on-rise):"


@pytest.mark.parametrize("change", ["typed", "a", "b", "x", "same a", "compared a"])
@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["100x32", "80x24"])
def test_other_picks_clear_the_comparison_as_typing_does(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    size: tuple[int, int],
    change: str,
) -> None:
    async def go() -> tuple[str, int, str, int]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            screen, keys = await runs_listed(pilot, app, rejudged_copy)
            picker = screen.query_one(RunPicker)
            if change in ("x", "same a"):  # a comparison of picked runs
                picker.put_cursor(keys[0])
                await press(pilot, "a")
                picker.put_cursor(keys[1])
                await press(pilot, "b")
            await press(pilot, "ctrl+t")
            table = screen.query_one("#drift", FitTable)
            before, rows_before = "\n".join(painted(app)), table.row_count
            if change == "typed":
                screen.query_one("#r-b", Input).value = str(run_copy)
            elif change == "x":
                await press(pilot, "x")
            else:  # A's run as B, B's run as A, or run A (picked or compared) picked again
                picker.put_cursor(keys[1] if change == "a" else keys[0])
                await press(pilot, change[-1])
            await settle(pilot)
            return before, rows_before, "\n".join(painted(app)), table.row_count

    before, rows_before, after, rows_after = asyncio.run(go())
    assert GATE in before and rows_before > 0, before
    if change.endswith(" a"):  # the picks name the runs compared still: the comparison stays
        assert GATE in after and rows_after == rows_before, after
        return
    assert GATE not in after, after  # before: a/b/x kept the gate's outcome of other runs
    assert rows_after == 0 and "overall" not in after, after

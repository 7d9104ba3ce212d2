"""A judge ranking (`j`) is of the directories and picks it was asked for: when A or B is typed
into, a run is picked (`a`, `b`) or the picks are cleared (`x`), a ranking already shown goes,
as the comparison of those inputs does (before, only a ranking still running was dropped: a
finished one stayed, ranking runs the fields no longer named, with its note on the status
line). A listing of the directories that fails drops a ranking still running too (before, its
late answer put the leaderboard and its note over the listing's refusal)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from textual.widgets import Input

from judgeaudit.analysis import leaderboard
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.judges_table import JudgesTable
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.tui.helpers import (
    SIZE,
    SMALL,
    hold,
    make_app,
    painted,
    press,
    runs_with_b,
    settle,
    until,
)

#: the judges' note on the status line while their leaderboard is shown
NOTE = "judges of the same conversations"


@pytest.mark.parametrize("change", ["type-a", "type-b", "pick-a", "clear-picks"])
@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_a_shown_ranking_goes_when_the_inputs_change(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    size: tuple[int, int],
    change: str,
) -> None:
    async def go() -> tuple[bool, str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            screen = await runs_with_b(pilot, app, rejudged_copy)
            picker = screen.query_one(RunPicker)
            picker.focus()
            await press(pilot, "a")  # a pick, so clearing the picks changes something
            await press(pilot, "j")
            table = screen.query_one(JudgesTable)
            assert table.display and NOTE in str(screen.query_one("#runs-status").render())
            if change.startswith("type-"):
                screen.query_one(f"#r-{change[-1]}", Input).focus()
                await press(pilot, "end", "x")
            else:
                picker.focus()
                await press(pilot, "a" if change == "pick-a" else "x")
            return (
                table.display,
                str(screen.query_one("#runs-status").render()),
                "\n".join(painted(app)),
            )

    judges_shown, status, screen_text = asyncio.run(go())
    assert not judges_shown  # before: the leaderboard of the inputs before stayed
    assert NOTE not in status, status
    assert NOTE not in screen_text, screen_text


@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_a_failed_listing_drops_a_running_ranking(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
) -> None:
    """B is moved away while its ranking runs; the screen lists again (shown again after F1)
    and says B does not list: the ranking, of a directory that is gone, answers late and is
    not shown over that."""
    release, started, answered = hold(monkeypatch, leaderboard, "leaderboard")

    async def go() -> tuple[bool, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            screen = await runs_with_b(pilot, app, rejudged_copy)
            screen.query_one(RunPicker).focus()
            await pilot.press("j")  # the ranking starts and is held
            await until(pilot, started.is_set, "the ranking to start")
            shutil.move(rejudged_copy, rejudged_copy.with_name("moved"))
            await pilot.press("f1")
            await pilot.press("f6")  # the screen lists its directories again
            status = screen.query_one("#runs-status")
            await until(pilot, lambda: str(rejudged_copy) in str(status.render()), "refusal")
            release.set()
            await until(pilot, lambda: bool(answered), "the ranking to answer")
            await settle(pilot)
            return screen.query_one(JudgesTable).display, str(status.render())

    judges_shown, status = asyncio.run(go())
    assert not judges_shown
    assert str(rejudged_copy) in status and not status.startswith("judges"), status

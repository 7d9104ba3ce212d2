"""A run listing or a judge ranking still running when a newer one is asked for, or when the
view it was for is left: its answer is dropped when it arrives, as a late compare's is (before,
a slow listing of the directory opened first repainted the picker with its runs after the
directory typed since had listed, and a ranking asked for with `j` and left with ctrl+t took the
focus to the hidden leaderboard and the status line from the comparison). The one function each
worker calls is held on an event for the first request only."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from judgeaudit.analysis import compare_entry, leaderboard
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.runs import RunsScreen
from judgeaudit.tui.widgets.judges_table import JudgesTable
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.tui.helpers import SIZE, SMALL, make_app, painted, settle, until


@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_a_late_listing_of_the_directory_before_does_not_repaint_the_picker(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
) -> None:
    real = compare_entry.list_runs
    release, started = threading.Event(), threading.Event()
    answered: list[Path] = []

    def held(out: Path) -> Any:
        if out == run_copy:  # the directory the app opened with: answers once released
            started.set()
            assert release.wait(60)
        runs = real(out)
        answered.append(out)
        return runs

    monkeypatch.setattr(compare_entry, "list_runs", held)

    async def go() -> tuple[set[Path], str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            await pilot.press("f6")  # not `press`: it waits for every worker to end
            await until(pilot, started.is_set, "the first listing to start")
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            picker = screen.query_one(RunPicker)
            field = screen.query_one("#r-a", Input)
            field.value = str(rejudged_copy)  # another A, typed while the first still lists
            field.focus()
            await pilot.press("enter")
            await until(pilot, lambda: picker.row_count > 0, "the typed directory listed")
            release.set()
            await settle(pilot)
            assert run_copy in answered, "the first listing answered (late) and was dropped"
            return {r.out for r in picker.runs}, "\n".join(painted(app))

    outs, screen_text = asyncio.run(go())
    assert outs == {rejudged_copy}, outs  # before: the first directory's runs, listed last
    assert str(run_copy) + " " not in screen_text + " ", screen_text


@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_a_late_ranking_left_for_a_compare_takes_neither_focus_nor_status(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
) -> None:
    real = leaderboard.leaderboard
    release, started = threading.Event(), threading.Event()
    ranked: list[dict[str, Any]] = []

    def held(dirs: list[Path]) -> Any:
        started.set()
        assert release.wait(60)
        board = real(dirs)
        ranked.append(board)
        return board

    monkeypatch.setattr(leaderboard, "leaderboard", held)

    async def go() -> tuple[str, bool, bool, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            await pilot.press("f6")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            screen.query_one("#r-b", Input).value = str(rejudged_copy)
            screen.query_one(RunPicker).focus()
            await pilot.press("j")  # the ranking starts and is held
            await until(pilot, started.is_set, "the ranking to start")
            await pilot.press("ctrl+t")  # the user compares instead
            await until(pilot, lambda: screen.compared is not None, "the comparison")
            release.set()
            await settle(pilot)
            assert ranked and ranked[0].get("judges"), "the ranking answered (late), dropped"
            status = str(screen.query_one("#runs-status").render())
            focused = app.focused
            return (
                status,
                isinstance(focused, JudgesTable),
                screen.query_one(JudgesTable).display,
                "\n".join(painted(app)),
            )

    status, judges_focused, judges_shown, screen_text = asyncio.run(go())
    assert not judges_focused  # before: the focus went to the hidden leaderboard
    assert not judges_shown
    assert "judges of the same conversations" not in status, status  # the judges' note
    assert "judges of the same conversations" not in screen_text, screen_text
    assert "gate" in screen_text, screen_text  # the comparison is what the user sees

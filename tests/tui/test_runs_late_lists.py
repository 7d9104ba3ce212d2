"""A run listing or a judge ranking still running when a newer one is asked for, or when the
view it was for is left: its answer is dropped when it arrives, as a late compare's is (before,
a slow listing of the directory opened first repainted the picker with its runs after the
directory typed since had listed, a ranking asked for with `j` and left with ctrl+t took the
focus to the hidden leaderboard and the status line from the comparison, and one still running
when A was typed into took the focus from the field). The one function each worker calls is
held on an event for the first request only."""

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
from tests.tui.helpers import SIZE, SMALL, make_app, painted, press, settle, until


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


#: each key docs/tui.md names as leaving the judges view, and the view it shows instead
LEAVING = {"ctrl+t": "#changes-pane", "j": "#drift", "g": "#drift-chart-pane", "f": "#run-figures"}


@pytest.mark.parametrize("key", list(LEAVING))
@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_a_late_ranking_whose_view_was_left_takes_neither_focus_nor_status(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
    key: str,
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

    async def go() -> tuple[str, bool, bool, bool, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            await pilot.press("f6")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            screen.query_one("#r-b", Input).value = str(rejudged_copy)
            screen.query_one(RunPicker).focus()
            await press(pilot, "ctrl+t")  # a comparison first: `f` shows its figures
            before = screen.compared
            assert before is not None
            await pilot.press("j")  # the ranking starts and is held
            await until(pilot, started.is_set, "the ranking to start")
            await pilot.press(key)  # the user leaves the judges view
            if key == "ctrl+t":
                await until(pilot, lambda: screen.compared is not before, "the new comparison")
            release.set()
            await settle(pilot)
            assert ranked and ranked[0].get("judges"), "the ranking answered (late), dropped"
            status = str(screen.query_one("#runs-status").render())
            return (
                status,
                isinstance(app.focused, JudgesTable),
                screen.query_one(JudgesTable).display,
                screen.query_one(LEAVING[key]).display,
                "\n".join(painted(app)),
            )

    status, judges_focused, judges_shown, left_for_shown, screen_text = asyncio.run(go())
    assert not judges_focused  # before: the focus went to the hidden leaderboard
    assert not judges_shown
    assert left_for_shown  # the view the key shows, not the leaderboard
    assert "judges of the same conversations" not in status, status  # the judges' note
    assert "judges of the same conversations" not in screen_text, screen_text
    assert "ranking the judges" not in screen_text, screen_text
    if key == "ctrl+t":
        assert "gate" in screen_text, screen_text  # the comparison is what the user sees


@pytest.mark.parametrize("change", ["type-a", "pick-a"])
@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_a_ranking_running_when_a_is_typed_into_or_picked_is_dropped(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
    change: str,
) -> None:
    """`j`, then a key typed into field A (or `a` picking run A) while the ranking runs: the
    ranking is of the inputs before; before, its answer took the focus from the field or the
    picker (the next keys went to the leaderboard) and the status line."""
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

    async def go() -> tuple[str, str, bool, bool, str]:
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
            field = screen.query_one("#r-a", Input)
            where = field if change == "type-a" else screen.query_one(RunPicker)
            where.focus()
            await pilot.press("x" if change == "type-a" else "a")  # while the ranking runs
            release.set()
            await settle(pilot)
            assert ranked and ranked[0].get("judges"), "the ranking answered (late), dropped"
            if change == "type-a":
                await pilot.press("y")  # the next key: still the field's
                await settle(pilot)
            else:
                assert screen.pick_a is not None
            status = str(screen.query_one("#runs-status").render())
            return (
                field.value,
                status,
                app.focused is where,
                screen.query_one(JudgesTable).display,
                "\n".join(painted(app)),
            )

    value, status, still_focused, judges_shown, screen_text = asyncio.run(go())
    if change == "type-a":  # (focus selects the field) before: "y" went to the leaderboard
        assert value == "xy", value
    assert still_focused
    assert not judges_shown  # no ranking of the directories before, nor its spinner
    assert "judges of the same conversations" not in status, status
    assert "judges of the same conversations" not in screen_text, screen_text
    assert "ranking the judges" not in screen_text, screen_text

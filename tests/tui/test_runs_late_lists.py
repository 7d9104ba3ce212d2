"""A run listing or a judge ranking still running when a newer one is asked for, or when the
view it was for is left: its answer is dropped when it arrives, as a late compare's is (before,
a slow listing of the directory opened first repainted the picker with its runs after the
directory typed since had listed, a ranking asked for with `j` and left with ctrl+t took the
focus to the hidden leaderboard and the status line from the comparison, and one still running
when A was typed into took the focus from the field). The real function each worker calls is
held until released (`hold`); the ranking's cases are one parametrized test (they were three
near-identical bodies)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widget import Widget
from textual.widgets import Input

from judgeaudit.analysis import compare_entry, leaderboard
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.runs import RunsScreen
from judgeaudit.tui.widgets.judges_table import JudgesTable
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.tui.helpers import SIZE, SMALL, hold, make_app, painted, press, settle, until


@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_a_late_listing_of_the_directory_before_does_not_repaint_the_picker(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
) -> None:
    # the directory the app opened with answers once released
    release, started, answered = hold(monkeypatch, compare_entry, "list_runs", run_copy)

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
            assert [run_copy] in answered, "the first listing answered (late) and was dropped"
            return {r.out for r in picker.runs}, "\n".join(painted(app))

    outs, screen_text = asyncio.run(go())
    assert outs == {rejudged_copy}, outs  # before: the first directory's runs, listed last
    assert str(run_copy) + " " not in screen_text + " ", screen_text


#: each key docs/tui.md names as leaving the judges view, and the view it shows instead
LEAVING = {"ctrl+t": "#changes-pane", "j": "#drift", "g": "#drift-chart-pane", "f": "#run-figures"}
#: the changes of the inputs while a ranking runs: a key typed into field A, `a` picking run A
CHANGES = ("type-a", "pick-a")


@pytest.mark.parametrize("action", [*LEAVING, *CHANGES])
@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_a_late_ranking_whose_view_was_left_or_inputs_changed_is_dropped(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
    action: str,
) -> None:
    """`j` after a comparison, then while the ranking runs a key that leaves its view, or a key
    typed into field A (`a` picking run A): its answer arrives late and is dropped. Before, it
    took the focus to the hidden leaderboard (the next keys went there) and the status line."""
    release, started, ranked = hold(monkeypatch, leaderboard, "leaderboard")

    async def go() -> tuple[str, bool, bool, bool, bool, str, str]:
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
            field = screen.query_one("#r-a", Input)
            where: Widget = field if action == "type-a" else screen.query_one(RunPicker)
            if action in CHANGES:
                where.focus()
            await pilot.press({"type-a": "x", "pick-a": "a"}.get(action, action))
            if action == "ctrl+t":
                await until(pilot, lambda: screen.compared is not before, "the new comparison")
            release.set()
            await settle(pilot)
            assert ranked, "the ranking answered (late), dropped"
            if action == "type-a":
                await pilot.press("y")  # the next key: still the field's
                await settle(pilot)
            shown = LEAVING.get(action, "#drift")
            return (
                str(screen.query_one("#runs-status").render()),
                isinstance(app.focused, JudgesTable),
                app.focused is where,
                screen.query_one(JudgesTable).display,
                screen.query_one(shown).display,
                "\n".join(painted(app)),
                field.value,
            )

    status, judges_focused, kept, judges_shown, left_for_shown, screen_text, typed = asyncio.run(
        go()
    )
    assert not judges_focused  # before: the focus went to the hidden leaderboard
    assert kept or action not in CHANGES  # the field or the picker kept it
    if action == "type-a":  # (focus selects the field) before: "y" went to the leaderboard
        assert typed == "xy", typed
    assert not judges_shown  # no ranking of the inputs before, nor its spinner
    assert left_for_shown  # the view the key shows, not the leaderboard
    assert "judges of the same conversations" not in status, status  # the judges' note
    assert "judges of the same conversations" not in screen_text, screen_text
    assert "ranking the judges" not in screen_text, screen_text
    if action == "ctrl+t":
        assert "gate" in screen_text, screen_text  # the comparison is what the user sees

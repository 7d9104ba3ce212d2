"""The Runs screen's `x`, and `f` / `g` before a comparison. `x` forgets runs A and B picked in
the list: their marks go and ctrl+t compares the fields' directories again. `f` and `g` show a
comparison's figures and chart; before one there is nothing to show, so both leave the view as
it is (the judges' leaderboard too) and say why: `g` showed an empty pane in place of the
leaderboard, while `f` said so and kept it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.judges_table import JudgesTable
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.tui.helpers import (
    SIZE,
    SMALL,
    hold,
    make_app,
    notices,
    painted,
    press,
    runs_listed,
    runs_with_b,
    settle,
    until,
)

NO_COMPARISON = "no comparison yet: ctrl+t compares run A with run B"


def _sides(picker: RunPicker) -> list[str]:
    return [str(cells["side"]) for _, cells in picker.rows_data if str(cells["side"])]


@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_x_forgets_the_picks_and_ctrl_t_compares_the_fields_again(
    isolated: ProfileStore, run_copy: Path, rejudged_copy: Path, size: tuple[int, int]
) -> None:
    async def go() -> tuple[list[str], list[str], str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            screen, keys = await runs_listed(pilot, app, rejudged_copy)
            picker = screen.query_one(RunPicker)
            # the other way round from the fields: B's run as A, A's run as B
            picker.put_cursor(keys[1])
            await press(pilot, "a")
            picker.put_cursor(keys[0])
            await press(pilot, "b")
            picked = _sides(picker)
            await press(pilot, "x")
            cleared = _sides(picker)
            await press(pilot, "ctrl+t")
            assert screen.compared is not None
            result = screen.compared.result
            return picked, cleared, str(result["run_a"]), str(result["run_b"])

    picked, cleared, run_a, run_b = asyncio.run(go())
    assert sorted(picked) == ["A", "B"], picked
    assert cleared == [], cleared
    assert run_a != run_b
    assert (run_a, run_b) == _fields_compare(run_copy, rejudged_copy)


def _fields_compare(out_a: Path, out_b: Path) -> tuple[str, str]:
    """What `judgeaudit compare A B` compares: the runs the fields name, not the picks."""
    from judgeaudit.analysis.compare_entry import compare_runs

    result = compare_runs(out_a, out_b, None, None).result
    return str(result["run_a"]), str(result["run_b"])


@pytest.mark.parametrize("key", ["f", "g"])
@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_f_and_g_before_a_comparison_keep_the_judges_view_and_say_why(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    size: tuple[int, int],
    key: str,
) -> None:
    async def go() -> tuple[bool, bool, list[str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            screen = await runs_with_b(pilot, app, rejudged_copy)
            screen.query_one(RunPicker).focus()
            await press(pilot, "j", key)
            view = "#drift-chart-pane" if key == "g" else "#run-figures"
            return (
                screen.query_one(JudgesTable).display,
                screen.query_one(view).display,
                notices(app),
            )

    judges_shown, view_shown, said = asyncio.run(go())
    assert judges_shown and not view_shown  # before: g showed an empty chart pane
    assert said[-1:] == [NO_COMPARISON], said


@pytest.mark.parametrize("key", ["j", "a", "g g", "f f"])
@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_leaving_the_judges_view_brings_the_comparison_back_whole(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    size: tuple[int, int],
    key: str,
) -> None:
    """ctrl+t, `j`, then `j` again (or `a`, a run picked, which leaves the leaderboard; or `g`
    or `f` twice, the chart or figures and back: reviewer): the drift table came back without
    the change pane above it, the gate's outcome gone."""

    async def go() -> tuple[bool, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            screen = await runs_with_b(pilot, app, rejudged_copy)
            screen.query_one(RunPicker).focus()
            await press(pilot, "ctrl+t", "j")
            assert screen.query_one(JudgesTable).display
            if key == "a":
                screen.query_one(RunPicker).focus()
            await press(pilot, *key.split())
            return screen.query_one("#changes-pane").display, "\n".join(painted(app))

    pane_shown, screen_text = asyncio.run(go())
    assert pane_shown
    assert "gate (--fail-on-rise):" in screen_text, screen_text


@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_a_compare_answering_under_the_leaderboard_keeps_its_pane_hidden(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
) -> None:
    """ctrl+t, then `j` while the compare runs: its answer showed the change pane beside the
    judges' leaderboard, which takes that room (reviewer); `j` again shows both."""
    from judgeaudit.analysis import compare_entry

    release, started, _ = hold(monkeypatch, compare_entry, "compare_runs")

    async def go() -> tuple[bool, bool]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            screen = await runs_with_b(pilot, app, rejudged_copy)
            screen.query_one(RunPicker).focus()
            await pilot.press("ctrl+t")
            await until(pilot, started.is_set, "the compare to start")
            await pilot.press("j")
            release.set()
            await until(pilot, lambda: screen.compared is not None, "the compare's answer")
            await settle(pilot)
            under = screen.query_one("#changes-pane").display
            await press(pilot, "j")
            return under, screen.query_one("#changes-pane").display

    under_leaderboard, after = asyncio.run(go())
    assert not under_leaderboard and after

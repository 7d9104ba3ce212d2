"""A compare still running when A, B or the picks change: its answer, of the old inputs, is
dropped when it arrives (before, a slow first compare painted its gate and rows over the second,
or over the fields that no longer named its runs). The one function the screen calls,
``compare_entry.compare_runs``, is held on an event for the first request only; the test checks
that the first compare did answer, with a comparison (not a refusal, which would clear the pane
anyway), and that its answer reached the screen after the change, and was not shown."""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static

from judgeaudit.analysis import compare_entry
from judgeaudit.analysis.compare_entry import Comparison
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.runs import RunsScreen
from judgeaudit.tui.widgets.fit_table import FitTable
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.tui.helpers import SIZE, make_app, press, runs_with_b, settle, until


@pytest.mark.parametrize("change", ["b", "b-and-compare", "pick"])
def test_a_late_compare_of_earlier_inputs_is_dropped(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    change: str,
) -> None:
    again = change == "b-and-compare"
    other_b = tmp_path / "other-b"
    shutil.copytree(rejudged_copy, other_b)
    real = compare_entry.compare_runs
    release, started = threading.Event(), threading.Event()
    first: list[Comparison] = []  # what the first compare answered

    def held(out_a: Path, out_b: Path | None, *args: Any, **kwargs: Any) -> Any:
        if out_b == rejudged_copy:  # the first request: answers once released
            started.set()
            assert release.wait(60)
            first.append(real(out_a, out_b, *args, **kwargs))
            return first[0]
        return real(out_a, out_b, *args, **kwargs)

    monkeypatch.setattr(compare_entry, "compare_runs", held)
    answers: list[Comparison | str] = []  # every answer that reached the screen, in order
    answered = RunsScreen.answered

    def heard(screen: RunsScreen, request: int, answer: Comparison | str) -> None:
        answers.append(answer)
        answered(screen, request, answer)

    monkeypatch.setattr(RunsScreen, "answered", heard)

    async def go() -> tuple[str, bool, int, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            screen = await runs_with_b(pilot, app, rejudged_copy)
            field = screen.query_one("#r-b", Input)
            field.focus()
            await press(pilot, "enter")
            await pilot.press("ctrl+t")  # not `press`: it waits for every worker to end
            await until(pilot, started.is_set, "the first compare to start")
            if change == "pick":  # run A picked on the list (focused after Enter) while it runs
                assert screen.query_one(RunPicker).has_focus
                await pilot.press("a")
            else:
                field.value = str(other_b)  # B changes while it runs
            await pilot.pause(0.1)
            if again:
                await pilot.press("ctrl+t")
                await until(pilot, lambda: screen.compared is not None, "the second")
            release.set()
            await settle(pilot)
            changes = str(screen.query_one("#changes", Static).render())
            pane = screen.query_one("#changes-pane").display
            status = str(screen.query_one("#runs-status").render())
            return changes, pane, screen.query_one("#drift", FitTable).row_count, status

    changes, pane_shown, rows, status = asyncio.run(go())
    # the first compare answered a comparison of the first B, and that answer reached the screen
    # last (after the second's, when there is one): it was dropped, not refused or never made
    assert len(first) == 1 and first[0].out_b == rejudged_copy, first
    assert answers and answers[-1] is first[0], answers
    assert "refused" not in status, status
    if again:  # the second compare's gate and rows stay: B is the new directory
        assert pane_shown and rows, changes
        assert f"B: {other_b}" in changes, changes
        assert str(rejudged_copy) not in changes, changes
    else:  # nothing of the first: no gate, no rows, until ctrl+t compares the new B
        assert (changes, pane_shown, rows) == ("", False, 0), changes

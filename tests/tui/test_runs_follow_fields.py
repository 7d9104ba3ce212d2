"""The Runs picker and comparison follow the output-dir fields (a new user's finding): after
another B, the picker listed the first B's run, from neither field; after an A that cannot be
listed (a CSV file), the old runs and the old `gate (--fail-on-rise): FAILED` panel stayed under
the error line."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.runs import RunsScreen
from judgeaudit.tui.widgets.fit_table import FitTable
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.tui.helpers import SIZE, make_app, press, settle, wait_until

Shown = tuple[set[str], str, bool, int]


def test_runs_lists_only_a_and_b_and_drops_a_comparison_of_other_inputs(
    isolated: ProfileStore, run_copy: Path, rejudged_copy: Path, tmp_path: Path
) -> None:
    other_b = tmp_path / "rejudged-again"
    shutil.copytree(rejudged_copy, other_b)
    csv = tmp_path / "verdicts.csv"
    csv.write_text("pair_id,winner\np1,A\n", encoding="utf-8")

    async def go() -> tuple[Shown, Shown, Shown, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f6")
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            picker = screen.query_one(RunPicker)
            pane = screen.query_one("#changes-pane", VerticalScroll)

            def shown() -> Shown:
                dirs = {str(r["dir"]) for _, r in picker.rows_data}
                changes = str(screen.query_one("#changes", Static).render())
                drift = screen.query_one("#drift", FitTable).row_count
                return dirs, changes, bool(pane.display), drift

            async def compare_with(b: Path, enter: bool) -> Shown:
                field = screen.query_one("#r-b", Input)
                field.value = str(b)
                if enter:  # listed (and remembered, as a directory typed here is)
                    field.focus()
                    await press(pilot, "enter")
                picker.focus()
                await press(pilot, "ctrl+t")
                await wait_until(pilot, lambda: screen.compared is not None, "the comparison")
                for _ in range(50):  # B's runs listed (before the fix: never, asserted below)
                    if str(b) in shown()[0]:
                        break
                    await pilot.pause(0.1)
                await settle(pilot)
                return shown()

            first = await compare_with(rejudged_copy, enter=True)
            second = await compare_with(other_b, enter=False)  # typed, then ctrl+t
            screen.query_one("#r-b", Input).value = ""
            field = screen.query_one("#r-a", Input)
            field.value = str(csv)
            field.focus()
            await press(pilot, "enter")
            note = screen.query_one("#runs-status", Static)
            await wait_until(pilot, lambda: str(csv) in str(note.render()), "A's refusal")
            await settle(pilot)
            return first, second, shown(), str(note.render())

    first, second, refused, said = asyncio.run(go())
    assert first[0] == {str(run_copy), str(rejudged_copy)}
    assert "gate (--fail-on-rise)" in first[1] and first[2] and first[3]
    assert second[0] == {str(run_copy), str(other_b)}  # the first B's run is gone
    assert "gate (--fail-on-rise)" in second[1]
    dirs, changes, pane_shown, drift = refused
    assert dirs == set() and changes == "" and not pane_shown and drift == 0, refused
    assert said.startswith(str(csv)), said

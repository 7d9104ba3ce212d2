"""The Runs screen's picker at 80x24 and 120x40: a run id and a directory are shown whole or
not at all (cut in the middle, they name another run or place); the judge column narrows, cut
where the judges' names part."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Input

from judgeaudit.analysis.compare_entry import RunInfo
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.run_picker import RunPicker, run_key
from tests.tui.helpers import make_app, press, settle, wait_until


def test_run_ids_and_directories_are_never_cut(
    isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    async def go(size: tuple[int, int]) -> list[tuple[str, str, str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            await press(pilot, "f6")
            field = app.screen.query_one("#r-b", Input)
            field.value = str(rejudged_copy)
            field.focus()
            await press(pilot, "enter")
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: len(picker.rows_data) == 2, "both directories' runs")
            await settle(pilot)
            drawn = []
            for key, row in picker.shown_rows():
                for column in ("run", "dir"):
                    if column in picker.columns:
                        drawn.append((column, str(row[column]), str(picker.get_cell(key, column))))
            return drawn

    for size in ((80, 24), (120, 40)):
        drawn = asyncio.run(go(size))
        assert sum(column == "run" for column, _, _ in drawn) == 2, size
        for column, full, cell in drawn:
            assert cell == full and "…" not in cell, (size, column, cell)


class PickerApp(App[None]):
    def compose(self) -> ComposeResult:
        yield RunPicker(id="run-picker")


def test_two_judges_of_one_prefix_read_apart_at_80_columns() -> None:
    """A new user's two re-judges of judge-default at 80x24 both read ``judge-defa…``: the
    judge column is cut where the names part, so each shows its own options."""
    out = Path("out/judges")
    judges = ["judge-default:diligence=0,evidence=0.3,style=0.7", "judge-default:position=2.5"]
    runs = [
        RunInfo(out, f"demo-rejudge-{i}47b63ce", "2026-12-06 07:17:00", judge, "finished")
        for i, judge in enumerate(judges)
    ]

    async def go(size: tuple[int, int]) -> list[str]:
        app = PickerApp()
        async with app.run_test(size=size) as pilot:
            picker = app.query_one(RunPicker)
            picker.show_runs(runs, None, None)
            await settle(pilot)
            return [str(picker.get_cell(run_key(r), "judge")) for r in runs]

    for size in ((80, 24), (120, 40)):
        drawn = asyncio.run(go(size))
        assert drawn[0] != drawn[1], (size, drawn)
        for cell, options in zip(drawn, ("dilige", "positi"), strict=True):
            assert options in cell, (size, drawn)


def test_the_created_time_gives_way_by_whole_fields_at_80_columns() -> None:
    """Long run ids (a spec's own name) left the created column 16 cells and it read
    ``2026-12-06 11:0…``, the minute cut; it drops the seconds, then the year, never a digit."""
    out = Path("out/nightly")
    runs = [
        RunInfo(
            out,
            "production-nightly-audit-v2-cd21ca2b",
            "2026-12-06 11:04:09",
            "recorded: judge-always-tie",
            "finished",
        ),
        RunInfo(
            out,
            "production-nightly-rejudge-5f0e",
            "2026-12-06 11:05:30",
            "recorded: judge-good",
            "finished",
        ),
    ]

    async def go(size: tuple[int, int]) -> list[str]:
        app = PickerApp()
        async with app.run_test(size=size) as pilot:
            picker = app.query_one(RunPicker)
            picker.show_runs(runs, None, None)
            await settle(pilot)
            return [str(picker.get_cell(run_key(r), "time")).strip() for r in runs]

    assert asyncio.run(go((120, 40))) == ["2026-12-06 11:04:09", "2026-12-06 11:05:30"]
    assert asyncio.run(go((84, 24))) == ["2026-12-06 11:04", "2026-12-06 11:05"]
    assert asyncio.run(go((80, 24))) == ["12-06 11:04", "12-06 11:05"]  # was "2026-12-06 11:0…"

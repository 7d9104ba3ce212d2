"""Results and what follows it act on the run Results shows: Review labels that run (not the
directory's newest), a refused gap source leaves the controls saying what is shown, and the
export writes the gap source and bins on screen (a new user's findings)."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Select, Static

from judgeaudit.analysis import report as report_module
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.export_prefs import ExportPreferences
from judgeaudit.tui.screens.results import ResultsScreen
from judgeaudit.tui.screens.review import ReviewScreen
from judgeaudit.tui.screens.runs import RunsScreen
from judgeaudit.tui.widgets.field import Field
from judgeaudit.tui.widgets.note import Note
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.cli_helpers import cli
from tests.tui.helpers import (
    SMALL,
    hold,
    make_app,
    notices,
    palette,
    press,
    settle,
    until,
    wait_until,
)


@pytest.fixture(scope="module")
def two_runs(small_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run, then a re-judge written into the same output directory (the newest run)."""
    out = tmp_path_factory.mktemp("two") / "run"
    shutil.copytree(small_run, out)
    done = cli("rejudge", str(out), "--out", str(out), "--judge-model",
               "judge-default:position=2.5")  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def runs_in_order(out: Path) -> list[str]:
    db = sqlite3.connect(out / "audit.db")
    try:
        return [str(r[0]) for r in db.execute("SELECT run_id FROM runs ORDER BY created_at, rowid")]
    finally:
        db.close()


def first_run(out: Path) -> str:
    return runs_in_order(out)[0]


def labelled_runs(out: Path) -> list[str]:
    db = sqlite3.connect(out / "audit.db")
    try:
        rows = db.execute(
            "SELECT DISTINCT p.run_id FROM human_labels h JOIN audit_pairs p USING (pair_id)"
        ).fetchall()
    finally:
        db.close()
    return [str(r[0]) for r in rows]


async def older_run_picked(pilot: Pilot[Any], app: App[Any]) -> None:
    """Runs (F6) with both runs listed and the cursor on the older one, as a user picks it."""
    await press(pilot, "f6")
    runs = app.screen
    assert isinstance(runs, RunsScreen)
    picker = runs.query_one(RunPicker)
    await wait_until(pilot, lambda: picker.row_count == 2, "both runs listed")
    picker.focus()
    picker.move_cursor(row=0)


def test_review_labels_the_run_results_shows(
    isolated: ProfileStore, two_runs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    shutil.copytree(two_runs, out)
    first = first_run(out)

    async def go() -> tuple[str, str, str]:
        app = make_app(isolated, out)
        async with app.run_test(size=SMALL) as pilot:
            await older_run_picked(pilot, app)
            await press(pilot, "ctrl+o")
            title = str(app.screen.query_one("#results-title", Static).render())
            await press(pilot, "v")
            assert isinstance(app.screen, ReviewScreen)
            await press(pilot, "1")  # a label, saved at once
            review = str(app.screen.query_one("#agreement", Static).render())
            await press(pilot, "f5")  # F5 from anywhere: still the run Results shows
            return title, review, str(app.screen.query_one("#agreement", Static).render())

    title, review, again = asyncio.run(go())
    assert f"run {first} (" in title
    assert f"of run {first} · labelled 1" in review
    assert f"of run {first} · labelled 1" in again
    assert labelled_runs(out) == [first]


def runs_of_pairs(out: Path, pair_ids: list[str]) -> set[str]:
    db = sqlite3.connect(out / "audit.db")
    try:
        marks = ",".join("?" * len(pair_ids))
        rows = db.execute(
            f"SELECT DISTINCT run_id FROM audit_pairs WHERE pair_id IN ({marks})", pair_ids
        ).fetchall()
    finally:
        db.close()
    return {str(r[0]) for r in rows}


def test_export_review_samples_the_run_review_labels(
    isolated: ProfileStore, two_runs: Path, tmp_path: Path
) -> None:
    """The older run opened from Runs: Review labelled it, but "export review…" wrote a sample
    of the directory's newest run, so the CSV and Review named different runs."""
    out = tmp_path / "run"
    shutil.copytree(two_runs, out)
    first = first_run(out)

    async def go() -> list[str]:
        app = make_app(isolated, out)
        async with app.run_test(size=SMALL) as pilot:
            await older_run_picked(pilot, app)
            await press(pilot, "ctrl+o", "v")
            assert isinstance(app.screen, ReviewScreen)
            await palette(pilot, "export review", "Export review…")
            await settle(pilot)
            return notices(app)

    said = asyncio.run(go())
    # the notice names the run it sampled: the older one, not the directory's newest
    assert any(
        f" pairs of run {first} to " in line for line in said if line.startswith("wrote ")
    ), said
    lines = (out / "review_sample.csv").read_text(encoding="utf-8").splitlines()
    pair_ids = [line.split(",", 1)[0] for line in lines[1:]]
    assert pair_ids
    assert runs_of_pairs(out, pair_ids) == {first}


def test_a_slower_build_of_the_run_opened_before_is_dropped(
    isolated: ProfileStore, two_runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run A, then run B of the same folder opened from Runs, A's report answering last: Results
    showed A while the app's run (which Review labels) was B."""
    out = tmp_path / "run"
    shutil.copytree(two_runs, out)
    run_a, run_b = runs_in_order(out)
    release, started, answered = hold(
        monkeypatch, report_module, "build_report", out, lambda _, o: o.run_id == run_a
    )

    async def open_row(pilot: Any, app: Any, row: int) -> None:
        await pilot.press("f6")  # not `press`: it waits for every worker, the held one too
        picker = app.screen.query_one(RunPicker)
        await until(pilot, lambda: picker.row_count == 2, "both runs listed")
        picker.focus()
        picker.move_cursor(row=row)
        await pilot.press("ctrl+o")

    async def go() -> tuple[str | None, str, str | None]:
        app = make_app(isolated, out)
        async with app.run_test(size=SMALL) as pilot:
            await open_row(pilot, app, 0)  # A, held
            await until(pilot, started.is_set, "run A's report to start")
            await open_row(pilot, app, 1)  # B
            screen = app.screen
            assert isinstance(screen, ResultsScreen)
            await until(pilot, lambda: screen.loaded, "run B's report")
            release.set()
            await until(pilot, lambda: len(answered) == 2, "run A's report, late")
            await settle(pilot)
            shown = screen.report["run_id"] if screen.report else None
            title = str(screen.query_one("#results-title", Static).render())
            return shown, title, app.run_id

    shown, title, app_run = asyncio.run(go())
    assert app_run == run_b
    assert shown == run_b, "run A's late report replaced B's"
    assert f"run {run_b} (" in title


def test_export_writes_the_gap_source_and_bins_results_shows(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """Results showed the judge gap with typed bins; `x`, ctrl+s wrote a data card bucketed
    by the capability gap (the run's declared one). The card carries what is on screen."""

    async def go() -> tuple[str, list[float], str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f4")
            screen = app.screen
            assert isinstance(screen, ResultsScreen)
            screen.query_one("#gap-source", Select).value = "judge"
            await wait_until(pilot, lambda: screen.loaded, "the judge gap's report")
            await press(pilot, "ctrl+e", *"0.2,0.5,0.9", "enter")
            await wait_until(pilot, lambda: screen.loaded, "the typed bins' report")
            report = screen.report
            assert report is not None
            shown = (str(report["gap_source"]), list(report["bins"]))
            await press(pilot, "escape", "x")  # out of the bins field, then Export
            assert isinstance(app.screen, ExportPreferences)
            title = str(app.screen.query_one(".title", Static).render())
            await press(pilot, "ctrl+s")
            await wait_until(pilot, lambda: not isinstance(app.screen, ExportPreferences), "done")
            return shown[0], shown[1], title

    source, bins, title = asyncio.run(go())
    assert (source, bins) == ("judge", [0.2, 0.5, 0.9])
    card = json.loads((run_copy / "preferences.trl.state.card.json").read_text(encoding="utf-8"))
    assert card["gap"]["source"] == "judge"
    assert card["gap"]["bins"] == [0.2, 0.5, 0.9]
    assert "judge gap, bins 0.2,0.5,0.9" in title  # the dialog says what it will write


def test_a_refused_gap_source_leaves_the_controls_saying_what_is_shown(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """Bins typed, then the external gap chosen on a run without external gaps: the refusal
    showed, but the selector stayed on `external`, the title lost its run and the bins field
    emptied over the capability table still shown."""

    async def go() -> tuple[str, object, str, str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f4")
            screen = app.screen
            assert isinstance(screen, ResultsScreen)
            await press(pilot, "ctrl+e", *"0.2,0.5", "enter")
            await wait_until(pilot, lambda: screen.loaded, "the typed bins' report")
            before = str(screen.query_one("#results-title", Static).render())
            await press(pilot, "escape", "g", "enter", "end", "enter")  # external, as a user
            await wait_until(pilot, lambda: screen.loaded, "the refusal")
            return (
                before,
                screen.query_one("#gap-source", Select).value,
                str(screen.query_one("#results-title", Static).render()),
                screen.query_one("#bins", Field).value,
                str(screen.query_one("#results-error", Note).render()),
            )

    before, source, title, bins, error = asyncio.run(go())
    assert error.startswith("gap source external: ")  # the app's words: no --gap-source there
    assert source == "capability"  # what the table shows
    assert title == before and ": run " in title
    assert bins == "0.2,0.5"

"""The app's read side on an ``audit.db`` edited by hand (issue 27): Results and the Runs list
say the store's one line (file, table.column, pair, what to do) instead of crashing or showing
figures counted from a value the column cannot hold."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.review import ReviewScreen
from tests.audit_helpers import write_spec
from tests.badinput.cases import truncated_db
from tests.tui.helpers import SIZE, make_app, notices, press, run_from_launch, wait_until


def test_results_and_runs_refuse_a_wrongly_typed_column(
    isolated: ProfileStore, run_copy: Path
) -> None:
    db = sqlite3.connect(run_copy / "audit.db")
    (pair_id,) = db.execute("SELECT pair_id FROM audit_pairs WHERE rowid = 1").fetchone()
    db.execute("UPDATE audit_pairs SET success_a = 'x' WHERE rowid = 1")
    db.commit()
    db.close()

    async def go() -> tuple[str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")
            error = app.screen.query_one("#results-error", Static)
            await wait_until(pilot, lambda: bool(str(error.render())), "the refusal")
            shown = str(error.render())
            await press(pilot, "f6")
            status = app.screen.query_one("#runs-status", Static)
            await wait_until(pilot, lambda: bool(str(status.render())), "the runs' problem")
            return shown, str(status.render())

    results, runs = asyncio.run(go())
    for text in (results, runs):
        flat = " ".join(text.split())
        assert f"{run_copy}/audit.db: audit_pairs.success_a of pair '{pair_id}'" in flat, flat
        assert "the text 'x' where 0 or 1 is expected" in flat and "re-run the audit" in flat


def test_a_run_into_an_out_whose_audit_db_is_damaged_says_the_one_line(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """Ctrl+G onto a truncated audit.db: the store's line, not "DatabaseError: database disk
    image is malformed"; the file is left as it was."""
    out = tmp_path / "out"
    out.mkdir()
    damage = truncated_db()
    (out / "audit.db").write_bytes(damage)

    async def go() -> str:
        app = make_app(isolated, out, demo_spec=write_spec(tmp_path / "spec.toml"))
        async with app.run_test(size=SIZE) as pilot:
            return await run_from_launch(pilot, app, "ctrl+g", "the run to end")

    stats = " ".join(asyncio.run(go()).split())
    assert f"run failed: {out}/audit.db: damaged (database disk image is malformed)" in stats
    assert "restore it from a copy, or run the audit into a new --out directory" in stats
    assert (out / "audit.db").read_bytes() == damage
    assert sorted(p.name for p in out.iterdir()) == ["audit.db"]


def test_a_label_saved_onto_a_damaged_audit_db_is_refused_in_one_line(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """Review open, then audit.db damaged (a copy cut short over it): pressing a label key
    leaves the app running on Review, shows the store's line (the CLI's `review import` says
    the same) and that the label was not saved; the pair still reads unlabelled and nothing in
    OUT changed."""
    damage = truncated_db()
    before: dict[str, bytes] = {}

    async def go() -> tuple[bool, str, list[str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5")
            assert isinstance(app.screen, ReviewScreen)
            (run_copy / "audit.db").write_bytes(damage)
            before.update({p.name: p.read_bytes() for p in run_copy.iterdir() if p.is_file()})
            await press(pilot, "1")
            head = str(app.screen.query_one("#review-head", Static).render())
            return (
                isinstance(app.screen, ReviewScreen),
                head,
                notices(app),
            )

    on_review, head, notes = asyncio.run(go())
    assert on_review
    assert "your labels: A -, B -, prefer -" in head, head
    assert len(notes) == 1, notes
    assert notes[0] == (
        f"label not saved: {run_copy}/audit.db: damaged (database disk image is malformed); it "
        "was left as it is: restore it from a copy, or run the audit into a new --out directory"
    )
    after = {p.name: p.read_bytes() for p in run_copy.iterdir() if p.is_file()}
    assert after == before

"""The app's read side on an ``audit.db`` edited by hand (issue 27): Results and the Runs list
say the store's one line (file, table.column, pair, what to do) instead of crashing or showing
figures counted from a value the column cannot hold."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from tests.tui.helpers import SIZE, make_app, press, wait_until


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

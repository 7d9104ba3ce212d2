"""The app on an ``audit.db`` another process holds locked (a write transaction left open in a
``sqlite3`` shell): Review's label save says the store's one line and stays (SQLite's
"database is locked" ended the app), and Results, which says to try again, does load the
figures when the user comes back after the lock is gone (it kept the message until the file
itself changed)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.results import ResultsScreen
from judgeaudit.tui.screens.review import ReviewScreen
from tests.report_fixture import held_locked
from tests.tui.helpers import SIZE, make_app, notices, press, wait_until


def _locked_line(out: Path) -> str:
    return (
        f"{out}/audit.db: another process holds it locked (database is locked); wait for that"
        " process to finish, then try again"
    )


def test_a_label_saved_while_audit_db_is_locked_is_refused_and_the_app_stays(
    isolated: ProfileStore, run_copy: Path
) -> None:
    async def go() -> tuple[bool, list[str], str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5")
            assert isinstance(app.screen, ReviewScreen)
            with held_locked(run_copy / "audit.db"):
                await press(pilot, "1")  # settles: the save's worker waits out the lock
            head = str(app.screen.query_one("#review-head", Static).render())
            return (
                isinstance(app.screen, ReviewScreen),
                notices(app),
                head,
            )

    on_review, notes, head = asyncio.run(go())
    assert on_review
    assert notes == [f"label not saved: {_locked_line(run_copy)}"]
    assert "your labels: A -, B -, prefer -" in head, head
    labels = sqlite3.connect(run_copy / "audit.db").execute("SELECT COUNT(*) FROM human_labels")
    assert labels.fetchone()[0] == 0


def test_results_loads_the_figures_on_coming_back_once_the_lock_is_gone(
    isolated: ProfileStore, run_copy: Path
) -> None:
    async def go() -> tuple[str, str, bool]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            with held_locked(run_copy / "audit.db"):
                await press(pilot, "f4")
                screen = app.screen
                assert isinstance(screen, ResultsScreen)
                error = screen.query_one("#results-error", Static)
                await wait_until(pilot, lambda: bool(str(error.render())), "the refusal")
                refused = " ".join(str(error.render()).split())
            await press(pilot, "f6", "f4")  # away and back, nothing else changed
            await wait_until(pilot, lambda: screen.report is not None, "the figures")
            return refused, str(error.render()), screen.report is not None

    refused, after, loaded = asyncio.run(go())
    assert refused == _locked_line(run_copy)
    assert loaded and after == ""

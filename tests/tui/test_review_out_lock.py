"""Review's label saves while a run writes OUT: the labels are stored, report.html is left to
the run's closing report, and the app says so once (not on every key); once the run is gone the
next save rewrites report.html again."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from judgeaudit.analysis.report import build_report, write_report_files
from judgeaudit.audit.store.out_lock import writing
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.review import ReviewScreen
from tests.tui.helpers import SIZE, make_app, notices, press, wait_until


def prefs(out: Path) -> list[str]:
    db = sqlite3.connect(out / "audit.db")
    rows = [str(r[0]) for r in db.execute("SELECT human_pref FROM human_labels")]
    db.close()
    return rows


def test_labels_saved_during_a_run_leave_report_html_to_it_and_say_so_once(
    isolated: ProfileStore, run_copy: Path
) -> None:
    report = write_report_files(run_copy, build_report(run_copy))[0]  # as `run` leaves it
    before = report.read_bytes()

    async def go() -> tuple[list[str], bytes, list[str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5")
            assert isinstance(app.screen, ReviewScreen)
            with writing(run_copy):  # a run holds OUT, as a live one does
                await press(pilot, "a")
                await wait_until(pilot, lambda: prefs(run_copy) == ["A"], "the first save")
                await press(pilot, "b")
                await wait_until(pilot, lambda: prefs(run_copy) == ["B"], "the second save")
                during = report.read_bytes()
            await press(pilot, "t")  # the run has ended
            await wait_until(pilot, lambda: report.read_bytes() != before, "the rewrite")
            return notices(app), during, prefs(run_copy)

    notes, during, stored = asyncio.run(go())
    assert during == before
    assert notes == [
        "label saved; report.html not rewritten: a run (or an export) is writing OUT; its closing"
        " report will show them"
    ]
    assert stored == ["tie"]
    assert "No human labels yet" not in report.read_text(encoding="utf-8")

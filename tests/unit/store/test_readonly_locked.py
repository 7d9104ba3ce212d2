"""A reader or a label writer that finds audit.db locked by another process, or not writable,
says so and what to do in one line (a reader said "not a readable audit database (database is
locked)", which reads as damage; a label save raised SQLite's error, and the app's Review
screen crashed on it)."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from judgeaudit.audit.store import open_readonly
from judgeaudit.audit.store.labels import save_human_labels
from judgeaudit.errors import InputError
from tests.report_fixture import build_audit_db, held_locked

LABEL = {"pair_id": "r-main/t0", "human_success_a": 1, "human_success_b": 0, "human_pref": "A"}


def _labels(db: Path) -> int:
    count: int = sqlite3.connect(db).execute("SELECT COUNT(*) FROM human_labels").fetchone()[0]
    return count


def test_a_locked_audit_db_is_named_locked_by_a_reader_and_a_label_save(tmp_path: Path) -> None:
    db = build_audit_db(tmp_path / "out") / "audit.db"
    before = _labels(db)
    line = (
        f"{db}: another process holds it locked (database is locked); wait for that process"
        " to finish, then try again"
    )
    with held_locked(db):
        with pytest.raises(InputError) as reading:
            open_readonly(db).close()
        with pytest.raises(InputError) as saving:
            save_human_labels(db, [LABEL])
    assert str(reading.value) == str(saving.value) == line
    assert _labels(db) == before  # nothing written
    open_readonly(db).close()  # and once the lock is gone both work
    assert save_human_labels(db, [LABEL]).written == 1


def test_a_label_save_onto_an_unwritable_audit_db_says_so(tmp_path: Path) -> None:
    db = build_audit_db(tmp_path / "out") / "audit.db"
    before = db.read_bytes()
    # immutable: not even root may write it (the tests run as root in CI, where chmod is not enough)
    subprocess.run(["chattr", "+i", str(db)], check=True)
    try:
        with pytest.raises(InputError) as saving:
            save_human_labels(db, [LABEL])
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=True)
    assert str(saving.value).startswith(f"{db}: cannot be written (")
    assert str(saving.value).endswith(
        "); nothing was changed: make it writable, or work on a writable copy of the output"
        " directory"
    )
    assert db.read_bytes() == before


def test_the_report_caches_read_of_the_latest_run_does_not_wait_on_a_lock(tmp_path: Path) -> None:
    """Only the reader that follows waits out the lock (a locked report took twice as long with
    the report cache on)."""
    import time

    from judgeaudit.analysis.frame import resolve_run
    from judgeaudit.audit.store.readonly import latest_run_id

    db = build_audit_db(tmp_path / "out") / "audit.db"
    reader = open_readonly(db)
    assert latest_run_id(db) == resolve_run(reader, None)  # the run `report OUT` shows
    reader.close()
    with held_locked(db):
        started = time.monotonic()
        assert latest_run_id(db) is None
        assert time.monotonic() - started < 2.5  # SQLite's wait is 5 s

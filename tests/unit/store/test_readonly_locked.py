"""A reader that finds audit.db locked by a writer says so and what to do, in one line (it said
"not a readable audit database (database is locked)", which reads as damage)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from judgeaudit.audit.store import open_readonly
from judgeaudit.errors import InputError
from tests.report_fixture import build_audit_db


def test_a_locked_audit_db_is_named_locked_not_unreadable(tmp_path: Path) -> None:
    db = build_audit_db(tmp_path / "out") / "audit.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # as a writer mid-transaction in rollback-journal mode
    try:
        with pytest.raises(InputError) as caught:
            open_readonly(db).close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert str(caught.value) == (
        f"{db}: another process holds it locked (database is locked); wait for that process"
        " to finish, then try again"
    )
    open_readonly(db).close()  # and once the lock is gone it opens

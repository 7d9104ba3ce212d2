"""``has_table`` and ``tables_of`` answer for the file, never for a connection's TEMP tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from judgeaudit.audit.store.schema import has_table, migrate, tables_of


def test_a_table_the_file_has_and_one_it_lacks(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "audit.db", isolation_level=None)
    migrate(db, tmp_path / "audit.db")
    assert has_table(db, "verdict_tasks")
    db.execute("DROP TABLE verdict_tasks")  # as a file finished before migration 6 lacks it
    assert not has_table(db, "verdict_tasks")
    assert "verdict_tasks" not in tables_of(db)
    assert tables_of(db)[0] == "runs"  # in the order the migrations made them


def test_a_temp_table_or_an_index_does_not_answer_for_the_file() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE pairs (x)")
    db.execute("CREATE INDEX prompts ON pairs (x)")
    db.execute("CREATE TEMP TABLE tasks (x)")
    assert has_table(db, "pairs")
    assert not has_table(db, "tasks")
    assert not has_table(db, "prompts")
    db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY AUTOINCREMENT)")  # makes sqlite_sequence
    assert tables_of(db) == ["pairs", "t"]

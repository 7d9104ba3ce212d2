"""A Parquet history's run records laid out as an in-memory audit.db without pairs.

The store owns every table of audit.db, so the copy that lets the report and the trend read a
history through their usual queries is built here, from plain rows the analysis side hands over.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit.audit.store.schema import migrate

KEPT = "history_kept"  # the records db's table of what has no audit.db table (judges, style)


@dataclass(frozen=True)
class RecordRow:
    """One period's records, serialised: what goes into ``runs``, ``verdict_counts``,
    ``verdict_tasks`` and :data:`KEPT`."""

    run_id: str
    spec_hash: str
    manifest_json: str
    created_at: str
    verdict_counts: Sequence[Sequence[Any]]
    verdict_tasks: Sequence[Sequence[Any]]
    judges_json: str
    style_json: str


def records_db(path: Path, rows: Iterable[RecordRow]) -> sqlite3.Connection:
    """An in-memory database with audit.db's schema holding ``rows`` (read-only use)."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.row_factory = sqlite3.Row
    migrate(db, path)
    db.execute(f"CREATE TABLE {KEPT} (run_id TEXT PRIMARY KEY, judges TEXT, style TEXT)")
    for row in rows:
        db.execute(
            "INSERT INTO runs (run_id, spec_hash, manifest, status, created_at)"
            " VALUES (?, ?, ?, 'finished', ?)",
            (row.run_id, row.spec_hash, row.manifest_json, row.created_at),
        )
        db.executemany(
            "INSERT INTO verdict_counts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(row.run_id, *counts) for counts in row.verdict_counts],
        )
        db.executemany(
            "INSERT INTO verdict_tasks VALUES (?, ?, ?, ?, ?)",
            [(row.run_id, *counts) for counts in row.verdict_tasks],
        )
        db.execute(
            f"INSERT INTO {KEPT} VALUES (?, ?, ?)", (row.run_id, row.judges_json, row.style_json)
        )
    return db

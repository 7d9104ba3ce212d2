"""Whether a run's Parquet copy still says what audit.db says.

A finishing run (and ``export parquet``) stamps the copy with the run and audit.db's count of
changed or deleted pairs (:data:`judgeaudit.audit.store.schema.EDITS_TABLE`, kept by SQLite's
own triggers, whoever writes). A copy written before a hand ``UPDATE`` of audit.db, or rewritten
by another tool (which drops the stamp), no longer answers for the run: ``--engine auto`` then
reads audit.db and says why, and ``--engine duckdb``/``spark`` on the run's copy refuse it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Literal, NamedTuple

from judgeaudit.audit.store.parquet_out import (
    STAMP_EDITS,
    STAMP_RUN,
    duckdb_connection,
    pairs_edits,
    stamp,
)


class Stale(NamedTuple):
    """Why a copy does not answer for the run: ``edited`` (audit.db changed after it),
    ``unstamped`` (written by another tool or an older judgeaudit), ``other-run``, ``uncounted``
    (audit.db predates the count of edits: a read-only file of schema 3, which is not migrated;
    nothing says whether it changed after the copy, nor that it did)."""

    kind: Literal["edited", "unstamped", "other-run", "uncounted"]
    why: str


def stale_reason(db: sqlite3.Connection, parquet: Path, run_id: str | None) -> Stale | None:
    """None while ``parquet`` (a file) matches audit.db (and, given ``run_id``, was written for
    that run); else why not. Without DuckDB nothing can be read: None."""
    try:
        con = duckdb_connection()
    except ImportError:
        return None
    try:
        kept = stamp(con, parquet)
    except Exception:  # duckdb.Error: not a Parquet file; the engine names that itself
        return None
    finally:
        con.close()
    if STAMP_RUN not in kept:
        return Stale(
            "unstamped", f"{parquet} was not written by this judgeaudit (or was rewritten)"
        )
    if run_id is not None and kept[STAMP_RUN] != run_id:
        return Stale("other-run", f"{parquet} holds run {kept[STAMP_RUN]!r}, not {run_id!r}")
    edits = pairs_edits(db)
    if edits is None:  # before the stamp's own count: a copy written from this file has none
        return Stale(
            "uncounted",
            f"audit.db predates the count of pair edits (schema 3, read-only here, so not"
            f" migrated): nothing shows that {parquet} still matches it",
        )
    if STAMP_EDITS not in kept:
        return Stale(
            "unstamped", f"{parquet} was not written by this judgeaudit (or was rewritten)"
        )
    if kept[STAMP_EDITS] != str(edits):
        return Stale("edited", f"audit.db's pairs were changed after {parquet} was written")
    return None

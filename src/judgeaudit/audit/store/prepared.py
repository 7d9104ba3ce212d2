"""Rows prepared before their run exists, copied into ``audit.db`` by SQL (``INSERT … SELECT``).

A recorded-verdicts run validates its whole pairs file before it writes anything (a bad line is
one error and no half-written run), and that pass already holds every row it will store. It
writes them here, into a scratch SQLite file, and the store copies them into ``audit.db`` once
the run exists, so the file is parsed once, not once to check and again to store.

The run id is not known while rows are prepared (it depends on the spec hash, which covers the
file's content), so a prepared row holds ``''`` for ``run_id`` and its ids (``traj_id``,
``pair_id``, ``log_id``, all ``RUN/...``) without the run: the copy puts the run id in front.
Content columns are scrubbed of key shapes as they are prepared (:func:`scrubbed_rows`, the same
rule every other write goes through), so nothing copied is unscrubbed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from judgeaudit.audit.store.db import AuditStore, scrubbed_rows

#: (table, its columns, the id columns that start with the run id) of one prepared table.
Table = tuple[str, Sequence[str], Sequence[str]]
PREPARED = "prepared"  # the scratch file's name while it is attached to audit.db


def _quoted(columns: Sequence[str]) -> str:
    return ", ".join(f'"{c}"' for c in columns)


class Prepared:
    """Writes prepared rows into the scratch connection ``db`` (one the caller opened and owns),
    and marks chunk boundaries (the last rowid of every table) for the copy's transactions."""

    def __init__(
        self, db: sqlite3.Connection, tables: Sequence[Table], keys: Mapping[str, str]
    ) -> None:
        """``keys``: a table's key columns, for a table whose rows repeat (stored once)."""
        self.db = db
        self.tables = list(tables)
        self.marks: list[tuple[int, ...]] = []
        for table, columns, _ in self.tables:
            key = f", PRIMARY KEY ({keys[table]})" if table in keys else ""
            db.execute(f"CREATE TABLE {table} ({_quoted(columns)}{key})")

    def add(self, rows: Sequence[Sequence[Sequence[Any]]]) -> None:
        """Insert one batch (rows per table, in table order), scrubbed; then mark a chunk end."""
        for (table, columns, _), batch in zip(self.tables, rows, strict=True):
            marks = ", ".join("?" for _ in columns)
            self.db.executemany(
                f"INSERT OR IGNORE INTO {table} VALUES ({marks})",
                scrubbed_rows(table, columns, batch),
            )
        self.marks.append(
            tuple(
                int(self.db.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {t}").fetchone()[0])
                for t, _, _ in self.tables
            )
        )


def copy_prepared(
    store: AuditStore,
    scratch: Path,
    run_id: str,
    tables: Sequence[Table],
    marks: Sequence[tuple[int, ...]],
    on_chunk: Callable[[int], None],
) -> None:
    """Copy every chunk (one transaction each, ``INSERT OR IGNORE``: rows already stored by an
    earlier, killed attempt are left alone, so a rerun resumes) in file order."""
    store.flush()
    db = store.db
    db.execute(f"ATTACH DATABASE ? AS {PREPARED}", (str(scratch),))
    try:
        statements = []
        for table, columns, ids in tables:
            values = ", ".join(
                ":run" if c == "run_id" else f':run || "{c}"' if c in ids else f'"{c}"'
                for c in columns
            )
            statements.append(
                f"INSERT OR IGNORE INTO main.{table} ({_quoted(columns)}) SELECT {values}"
                f" FROM {PREPARED}.{table} WHERE rowid > :lo AND rowid <= :hi ORDER BY rowid"
            )
        low = (0,) * len(tables)
        for number, high in enumerate(marks):
            db.execute("BEGIN IMMEDIATE")
            try:
                for statement, lo, hi in zip(statements, low, high, strict=True):
                    if hi > lo:
                        db.execute(statement, {"run": run_id, "lo": lo, "hi": hi})
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            low = high
            on_chunk(number)
    finally:
        db.execute(f"DETACH DATABASE {PREPARED}")


def store_batch(store: AuditStore, tables: Sequence[Table], rows: Sequence[Sequence[Any]]) -> None:
    """Insert one batch of rows that already hold their run id (rows per table, in table order),
    scrubbed, in one transaction with ``INSERT OR IGNORE``: the copy's rule (a rerun after a
    kill stores nothing twice), for rows that need no scratch file because their file was
    validated before (:mod:`judgeaudit.audit.inputs.checked`)."""
    store.flush()
    db = store.db
    db.execute("BEGIN IMMEDIATE")
    try:
        for (table, columns, _), batch in zip(tables, rows, strict=True):
            marks = ", ".join("?" for _ in columns)
            db.executemany(
                f"INSERT OR IGNORE INTO main.{table} ({_quoted(columns)}) VALUES ({marks})",
                scrubbed_rows(table, columns, batch),
            )
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


__all__ = ["Prepared", "Table", "copy_prepared", "store_batch"]

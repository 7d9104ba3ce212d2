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

import contextlib
import sqlite3
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from judgeaudit.audit.store.db import AuditStore
from judgeaudit.audit.store.schema import column_list
from judgeaudit.audit.store.scrubbed import scrubbed_rows

#: (table, its columns, the id columns that start with the run id) of one prepared table.
Table = tuple[str, Sequence[str], Sequence[str]]
PREPARED = "prepared"  # the scratch file's name while it is attached to audit.db


#: A recorded run's store commits every this many pairs (its batches are smaller): each commit
#: writes every index page the inserts since the last one touched, and a log's ids come in no
#: key order, so at 1M pairs a commit per 20,000 pairs wrote most of the three id indexes 50
#: times over (docs/benchmarks.md, goal 4, wave 9). A killed run loses at most this many.
COMMIT_PAIRS = 100_000
#: SQLite's page cache while it stores (KiB; the connection's own size is put back after), so
#: a commit's dirty pages stay in memory until it writes them once.
BULK_CACHE_KIB = 131_072
#: WAL pages before a checkpoint copies them into audit.db, while it stores (SQLite's default is
#: 1,000: a checkpoint, and its fsync, after nearly every commit).
BULK_CHECKPOINT_PAGES = 100_000


class Grouped:
    """Batches written in transactions of at least ``per_commit`` units (pairs, or chunks);
    ``on_commit`` gets the tag of the last batch each commit holds. From :func:`grouped`."""

    def __init__(self, db: sqlite3.Connection, per_commit: int, on_commit: Callable[[int], None]):
        self.db, self.per_commit, self.on_commit = db, per_commit, on_commit
        self.pending, self.tag = 0, 0

    def add(self, write: Callable[[], None], units: int, tag: int) -> None:
        """Run ``write`` (its inserts) in the open transaction; commit once enough is pending."""
        if not self.db.in_transaction:
            self.db.execute("BEGIN IMMEDIATE")
        write()
        self.pending, self.tag = self.pending + units, tag
        if self.pending >= self.per_commit:
            self.commit()

    def commit(self) -> None:
        if self.db.in_transaction:
            self.db.execute("COMMIT")
            self.pending = 0
            self.on_commit(self.tag)


@contextlib.contextmanager
def grouped(
    store: AuditStore, per_commit: int, on_commit: Callable[[int], None]
) -> Iterator[Grouped]:
    """A bulk store's transactions (:class:`Grouped`), with a larger page cache and rarer
    checkpoints while it lasts; what is pending is committed at the end, rolled back on an
    error (a rerun stores it again: every insert is ``INSERT OR IGNORE``)."""
    store.flush()
    db = store.db
    cache = db.execute("PRAGMA cache_size").fetchone()[0]
    checkpoint = db.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    db.execute(f"PRAGMA cache_size = -{BULK_CACHE_KIB}")
    db.execute(f"PRAGMA wal_autocheckpoint = {BULK_CHECKPOINT_PAGES}")
    writes = Grouped(db, per_commit, on_commit)
    try:
        yield writes
        writes.commit()
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    finally:
        db.execute(f"PRAGMA cache_size = {int(cache)}")
        db.execute(f"PRAGMA wal_autocheckpoint = {int(checkpoint)}")
        db.execute("PRAGMA shrink_memory")  # the bulk cache's pages back to the system


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
            db.execute(f"CREATE TABLE {table} ({column_list(columns)}{key})")

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
    per_commit: int = 1,
) -> Generator[None, None, None]:
    """Copy every chunk in file order, ``per_commit`` chunks a transaction (``INSERT OR IGNORE``:
    rows already stored by an earlier, killed attempt are left alone, so a rerun resumes);
    ``on_chunk`` gets the number of the last chunk each commit holds. Yields after each chunk
    (closed there, it rolls back the open transaction)."""
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
                f"INSERT OR IGNORE INTO main.{table} ({column_list(columns)}) SELECT {values}"
                f" FROM {PREPARED}.{table} WHERE rowid > :lo AND rowid <= :hi ORDER BY rowid"
                f"{_on_conflict(table, columns)}"
            )
        low = (0,) * len(tables)
        with grouped(store, per_commit, on_chunk) as writes:
            for number, high in enumerate(marks):

                def write(low: tuple[int, ...] = low, high: tuple[int, ...] = high) -> None:
                    for statement, lo, hi in zip(statements, low, high, strict=True):
                        if hi > lo:
                            db.execute(statement, {"run": run_id, "lo": lo, "hi": hi})

                writes.add(write, 1, number)
                low = high
                yield
    finally:
        db.execute(f"DETACH DATABASE {PREPARED}")


def insert_batch(store: AuditStore, tables: Sequence[Table], rows: Sequence[Sequence[Any]]) -> None:
    """Insert one batch of rows that already hold their run id (rows per table, in table order),
    scrubbed, with ``INSERT OR IGNORE`` (the copy's rule: a rerun after a kill stores nothing
    twice), inside the caller's transaction (:func:`grouped`): rows that need no scratch file
    because their file was validated before (:mod:`judgeaudit.audit.inputs.checked`)."""
    db = store.db
    for (table, columns, _), batch in zip(tables, rows, strict=True):
        marks = ", ".join("?" for _ in columns)
        db.executemany(
            f"INSERT OR IGNORE INTO main.{table} ({column_list(columns)}) VALUES ({marks})"
            f"{_on_conflict(table, columns)}",
            scrubbed_rows(table, columns, batch),
        )


def _on_conflict(table: str, columns: Sequence[str]) -> str:
    """The upsert clause after ``INSERT OR IGNORE``: a row already stored is left alone, except
    that a pair stored before ``source_id`` existed (a run killed, judgeaudit upgraded, the run
    resumed) gets its log's id now; a pair that has one is not touched (no edit counted). OR
    IGNORE still skips a row another constraint refuses; an upsert after a SELECT needs that
    SELECT's WHERE (SQLite's parsing rule; copy_prepared's has one)."""
    if table != "audit_pairs" or "source_id" not in columns:
        return ""
    return (
        " ON CONFLICT(pair_id) DO UPDATE SET source_id = excluded.source_id"
        " WHERE audit_pairs.source_id IS NULL AND excluded.source_id IS NOT NULL"
    )


__all__ = ["COMMIT_PAIRS", "Prepared", "Table", "copy_prepared", "grouped", "insert_batch"]

"""What differs between the engines' SQL, and the one interface an engine offers the report."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from judgeaudit.audit.units import gap as gaps


@dataclass(frozen=True)
class Dialect:
    """The three places the shared SQL text is filled in per engine.

    ``floor_gap``: SQLite rounds the gap with ``CAST(x AS INTEGER)`` (its ``FLOOR`` needs the
    math functions, not always compiled in); DuckDB's integer cast rounds half away from zero,
    so DuckDB and Spark take ``FLOOR`` (the same IEEE operations: the argument is never
    negative). ``seq``: the row-order column (SQLite's ``rowid``; the Parquet's ``seq``, which
    the export writes from it). ``no_flatten``: SQLite's ``LIMIT -1`` keeps a sub-select from
    being flattened into a CASE that would round the gap once per bin edge; the others need none.
    """

    name: str
    floor_gap: bool
    seq: str
    no_flatten: str

    def gap(self, source: str) -> str:
        """The gap expression of ``source`` (:func:`judgeaudit.audit.units.gap.gap_sql`)."""
        return gaps.gap_sql(source, floor=self.floor_gap)


SQLITE = Dialect("sqlite", floor_gap=False, seq="rowid", no_flatten=" LIMIT -1")
DUCKDB = Dialect("duckdb", floor_gap=True, seq="seq", no_flatten="")
SPARK = Dialect("spark", floor_gap=True, seq="seq", no_flatten="")


class Rows(Protocol):
    def __iter__(self) -> Iterator[Any]: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class Pairs(Protocol):
    """A relation ``audit_pairs`` (audit.db's columns) that runs a statement with ``?`` params."""

    dialect: Dialect

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows: ...

    def close(self) -> None: ...


class SqlitePairs:
    """audit.db's own table: the report as it always ran (the connection stays the caller's)."""

    dialect = SQLITE

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        return self.db.execute(sql, tuple(params))

    def close(self) -> None:
        """The connection belongs to whoever opened it."""


class ListRows:
    """Rows already fetched (DuckDB and Spark hand back whole results)."""

    def __init__(self, rows: Sequence[tuple[Any, ...]]) -> None:
        self.rows = list(rows)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows)

    def fetchone(self) -> Any:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[Any]:
        return self.rows


def as_pairs(db: Pairs | sqlite3.Connection) -> Pairs:
    """An engine as given, or audit.db's table for a bare SQLite connection."""
    return SqlitePairs(db) if isinstance(db, sqlite3.Connection) else db

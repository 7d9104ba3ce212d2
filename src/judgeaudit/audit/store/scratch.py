"""A reader's scratch tables: TEMP tables on its own connection to ``audit.db``.

They live in SQLite's temp database of that connection (memory, spilling to a temp file), never
in ``audit.db``, so a read-only connection may make them; the statements that make them are
here because the store owns every statement that writes (``tests/unit/store/test_ownership.py``).
The style model numbers a run's (task, agent) names and its trajectories' feature ids in them
and joins 2M trajectories and 1M pairs to those numbers (``analysis/why_sides.py``).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

_NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")


def _checked(*names: str) -> None:
    for name in names:
        if not _NAME.match(name):
            raise ValueError(f"not a scratch table or column name: {name!r}")


class Scratch:
    """TEMP tables made on ``db``, dropped on leaving the ``with`` block; a transaction opened
    to fill them is committed then (it wrote nothing else), one that was open is left open."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.made: list[str] = []
        self.began = db.in_transaction

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, failed: type[BaseException] | None, *exc: object) -> None:
        try:
            for name in reversed(self.made):
                self.db.execute(f"DROP TABLE IF EXISTS temp.{name}")
            if not self.began and self.db.in_transaction:
                self.db.commit()
        except sqlite3.Error:
            if failed is None:
                raise  # else the error that ended the block is the one to see

    def _new(self, name: str) -> None:
        # one a failed block could not drop (a statement still reading) goes now
        self.db.execute(f"DROP TABLE IF EXISTS temp.{name}")
        self.made.append(name)

    def select_into(self, name: str, select: str, params: Sequence[Any] = ()) -> None:
        """A table of what a ``SELECT`` returns, rows in its order (rowid 1, 2, ...)."""
        _checked(name)
        self._new(name)
        self.db.execute(f"CREATE TEMP TABLE {name} AS {select}", params)

    def fill(self, name: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """A table of ``rows`` (any iterable: a generator reading another cursor must close it
        when it fails, or the tables cannot be dropped)."""
        _checked(name, *columns)
        self._new(name)
        self.db.execute(f"CREATE TEMP TABLE {name} ({', '.join(columns)})")
        marks = ", ".join("?" for _ in columns)
        self.db.executemany(f"INSERT INTO temp.{name} VALUES ({marks})", rows)

    def index(self, name: str, columns: Sequence[str], unique: bool = False) -> None:
        """An index of a scratch table, for the lookups of a join."""
        _checked(name, *columns)
        kind = "UNIQUE INDEX" if unique else "INDEX"
        self.db.execute(f"CREATE {kind} temp.{name}_key ON {name}({', '.join(columns)})")

    def has_rows(self, name: str) -> bool:
        _checked(name)
        return self.db.execute(f"SELECT 1 FROM temp.{name} LIMIT 1").fetchone() is not None

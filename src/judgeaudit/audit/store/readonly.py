"""The one way analysis, the CLI and the app open ``audit.db``: read-only, version-checked,
every column checked against the schema (:mod:`judgeaudit.audit.store.column_check`).

An older file is migrated first (one short write transaction by :class:`AuditStore`) when its
directory is writable, so every reader sees the current schema; a file from a newer release is
refused in one line. Nothing but :mod:`judgeaudit.audit.store` writes the database.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from judgeaudit.audit.store.column_check import check_columns
from judgeaudit.audit.store.damage import damaged, is_damage, locked_line
from judgeaudit.audit.store.schema import SCHEMA_VERSION, SchemaError, check_readable, migrate
from judgeaudit.errors import InputError

#: The database's file name in an output directory, and the files SQLite keeps beside it (its
#: write-ahead log, shared memory, rollback journal): all of them are the run's, never a place to
#: write a command's output (:mod:`judgeaudit.analysis.outputs`).
DB_FILE = "audit.db"
DB_SIDECARS = ("-wal", "-shm", "-journal")

#: The order of a file's runs, oldest first: the last is "the latest run" every command shows
#: when no ``--run`` is given.
RUN_ORDER = "ORDER BY created_at, run_id"


def latest_run_id(path: Path) -> str | None:
    """The latest run's id, read straight from ``path`` with no column check: for a cache's key
    (what ``report OUT`` and ``report OUT --run ID`` share), never for a figure. None where it
    cannot be read; the reader that opens the file next says why."""
    try:  # no wait on a lock: the reader that follows waits and says so, once
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0)
    except sqlite3.Error:
        return None
    try:
        rows = db.execute(f"SELECT run_id FROM runs {RUN_ORDER}").fetchall()
    except sqlite3.Error:
        return None
    finally:
        db.close()
    return str(rows[-1][0]) if rows else None


def check_regular(path: Path) -> None:
    """Refuse what is not a regular file before anything reads it (a FIFO would block)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise InputError(f"{path}: cannot open the audit database ({exc.strerror})") from exc
    if not stat.S_ISREG(mode):
        raise InputError(f"{path}: not a regular file; point at an output directory's audit.db")


def open_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection to ``path`` (an ``audit.db``), rows as :class:`sqlite3.Row`."""
    check_regular(path)
    try:
        _migrate_if_older(path)
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        db.row_factory = sqlite3.Row
        try:
            check_readable(db, path)
            check_columns(db, path)
        except BaseException:
            db.close()
            raise
    except SchemaError:
        raise
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            raise damaged(path, str(exc)) from None
        if (getattr(exc, "sqlite_errorname", None) or "").startswith("SQLITE_BUSY"):
            raise InputError(locked_line(path)) from None  # a writer's lock, held on
        raise InputError(f"{path}: not a readable audit database ({exc})") from None
    return db


def _migrate_if_older(path: Path) -> None:
    probe = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        found = check_readable(probe, path)
    finally:
        probe.close()
    if found >= SCHEMA_VERSION or not os.access(path.parent, os.W_OK):
        return  # current, or a read-only copy: read it as it is
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        migrate(writer, path)
    finally:
        writer.close()

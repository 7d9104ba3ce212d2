"""What a damaged ``audit.db`` is told, by every reader and writer alike: one line naming the
file, what SQLite found and what to do, exit 2 (:class:`DamagedStore` is an InputError).

A truncated copy, a file overwritten by something else or a page scribbled on makes SQLite
raise ``SQLITE_CORRUPT`` or ``SQLITE_NOTADB`` wherever it first reads the damage: a writer's
``PRAGMA journal_mode=WAL`` crashed ``judgeaudit run`` with exit 70 where readers refused the
same file. The damaged file is never written: the refusal comes before any statement that
would change it, and its content is the user's to restore.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from judgeaudit.errors import InputError

#: SQLite's result codes for a file it cannot read as a database (its own words follow them).
DAMAGE_CODES = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB"})


class DamagedStore(InputError):
    """An ``audit.db`` SQLite cannot read; it was left as it is."""


def is_damage(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite saying the file itself is damaged (not busy, not read-only)."""
    return isinstance(exc, sqlite3.DatabaseError) and (
        getattr(exc, "sqlite_errorname", None) in DAMAGE_CODES
    )


def damaged_line(path: Path, reason: str) -> str:
    """The one line for a damaged ``audit.db`` (``reason``: SQLite's words, or "not SQLite")."""
    return (
        f"{path}: damaged ({reason}); it was left as it is: restore it from a copy, or run the "
        "audit into a new --out directory"
    )


def damaged(path: Path, reason: str) -> DamagedStore:
    return DamagedStore(damaged_line(path, reason))


def locked_line(path: Path) -> str:
    """The one line for an ``audit.db`` another process holds locked past SQLite's wait."""
    return (
        f"{path}: another process holds it locked (database is locked); wait for that process"
        " to finish, then try again"
    )


def unwritable_line(path: Path, reason: str) -> str:
    """The one line for an ``audit.db`` SQLite may not write (a read-only file or mount)."""
    return (
        f"{path}: cannot be written ({reason}); nothing was changed: make it writable, or work"
        " on a writable copy of the output directory"
    )


@contextmanager
def refusing_damage(path: Path) -> Iterator[None]:
    """Turn SQLite's refusals of the file itself inside the block into one line each: damaged
    (:func:`damaged`), locked by another process, or not writable; anything else is raised."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            raise damaged(path, str(exc)) from None
        code = getattr(exc, "sqlite_errorname", None) or ""
        if code.startswith("SQLITE_BUSY"):
            raise InputError(locked_line(path)) from None
        if code.startswith("SQLITE_READONLY"):
            raise InputError(unwritable_line(path, str(exc))) from None
        raise

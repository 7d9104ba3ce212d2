"""An import as one transaction: profiles and keyring entries appear together or not at all.

Why: an import of thousands of CC Switch rows takes minutes (every keyring write costs the
keyring daemon a rewrite of its file), and a kill in the middle used to leave keyring entries
that no profile refers to. A journal listing the names the import may create is written before
anything else; it is removed once every profile and key is written. The next import (or
``profile list``) finding a journal rolls the interrupted one back: its profiles and keys go.

Keys are written at the end as one keyring entry (the import bundle: one daemon write, however
many rows), and a key shared by several rows is stored once (the profiles refer to the same
entry). Profile files are written without a sync each; one sync precedes the journal's removal,
so a crash at any point leaves either the journal (rolled back) or every file on disk.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

import keyring
import keyring.errors

from judgeaudit import safeio
from judgeaudit.fsutil import atomic_write_text
from judgeaudit.profiles import secrets
from judgeaudit.profiles.model import ProfileError, check_name
from judgeaudit.profiles.store import ProfileStore


def journal_path(store: ProfileStore) -> Path:
    return store.root / "import-pending.json"


def begin(store: ProfileStore, names: Iterable[str], existing: set[str]) -> None:
    """Record the names this import may create (those not in ``existing``)."""
    fresh = sorted(set(names) - existing)
    atomic_write_text(journal_path(store), json.dumps({"names": fresh}) + "\n", mode=0o600)


def commit(store: ProfileStore) -> None:
    """Make the import's files durable, then drop the journal."""
    if hasattr(os, "sync"):
        os.sync()
    journal_path(store).unlink(missing_ok=True)


def recover(store: ProfileStore) -> int:
    """Roll back an interrupted import; how many profiles it removed."""
    path = journal_path(store)
    if not os.path.lexists(path):
        return 0
    try:
        data = json.loads(safeio.read_bytes(path, "import journal", ProfileError))
        names = [n for n in data["names"] if isinstance(n, str)]
    except (ProfileError, ValueError, KeyError, TypeError):
        names = []  # unreadable: nothing we can safely remove
    removed = 0
    valid: list[str] = []
    for name in names:
        try:
            profile = store.user_dir / f"{check_name(name)}.toml"
        except ProfileError:
            continue
        if profile.is_file():
            profile.unlink()
            removed += 1
        valid.append(name)
    with contextlib.suppress(ProfileError, secrets.SecretError, keyring.errors.KeyringError):
        secrets.delete_keys(valid)
    path.unlink(missing_ok=True)
    return removed


def write_keys(pending: list[tuple[str, str]]) -> None:
    """Store ``(entry, key)`` pairs: in one keyring write (the import bundle, see
    :data:`secrets.BUNDLE_ENTRY`), or one call each where a credential's size is capped
    (Windows' Credential Locker holds 2,560 bytes)."""
    if not pending:
        return
    ok, message = secrets.backend_usable()
    if not ok:
        raise secrets.SecretError(message)
    if "Windows" in secrets.qualname(secrets.backend()):
        for name, key in pending:
            secrets.set_key(name, key)
        return
    secrets.set_bundled(dict(pending))

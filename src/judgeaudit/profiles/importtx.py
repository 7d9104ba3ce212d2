"""An import as one transaction: profiles and keyring entries appear together or not at all.

Why: an import of thousands of CC Switch rows takes minutes (every keyring write costs the
keyring daemon a rewrite of its file), and a kill in the middle used to leave keyring entries
that no profile refers to. A journal listing the names the import may create is written before
anything else; it is removed once every profile and key is written. The next import (or
``profile list``) finding a journal rolls the interrupted one back: its profiles and keys go.

Keys are written in one batch at the end over one keyring connection, and a key shared by
several rows is stored once (the profiles refer to the same entry).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

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
    for name in names:
        try:
            profile = store.user_dir / f"{check_name(name)}.toml"
        except ProfileError:
            continue
        if profile.is_file():
            profile.unlink()
            removed += 1
        with contextlib.suppress(ProfileError, keyring.errors.KeyringError):
            secrets.delete_key(name)
    path.unlink(missing_ok=True)
    return removed


def _secret_service(backend: Any) -> Any:
    """The Secret Service backend itself, also when keyring chains it with others."""
    for each in getattr(backend, "backends", None) or [backend]:
        if hasattr(each, "get_preferred_collection"):
            return each
    return backend


def write_keys(pending: list[tuple[str, str]]) -> None:
    """Store ``(entry, key)`` pairs; over one Secret Service connection when that is the
    keyring (one connection instead of one per key), else one call each."""
    if not pending:
        return
    ok, message = secrets.backend_usable()
    if not ok:
        raise secrets.SecretError(message)
    backend = _secret_service(secrets.backend())
    collection_of = getattr(backend, "get_preferred_collection", None)
    query = getattr(backend, "_query", None)
    if collection_of is None or query is None:
        for name, key in pending:
            secrets.set_key(name, key)
        return
    try:
        collection = collection_of()
        with contextlib.closing(collection.connection):
            for name, key in pending:
                attributes = query(secrets.SERVICE, name, application=getattr(backend, "appid", ""))
                label = f"Password for '{name}' on '{secrets.SERVICE}'"
                collection.create_item(label, attributes, key.strip(), replace=True)
    except Exception as exc:  # secretstorage/jeepney errors: report, never the key
        raise secrets.SecretError(
            f"the keyring refused to store the imported keys ({type(exc).__name__})"
        ) from None

"""Backups of live tool files, taken before every write; listed, restorable, bounded."""

from __future__ import annotations

import json
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judgeaudit.fsutil import atomic_write_bytes, atomic_write_text
from judgeaudit.profiles.model import ProfileError

if TYPE_CHECKING:
    from judgeaudit.profiles.store import ProfileStore

KEEP_PER_APP = 20


@dataclass(frozen=True)
class Backup:
    id: str
    app: str
    original: str
    profile: str
    taken_at: str
    path: Path


def _dir(store: ProfileStore) -> Path:
    return store.root / "backups"


def save(store: ProfileStore, app: str, original: Path, content: bytes, profile: str) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    existing = {b.id for b in list_backups(store)}
    n = 1
    while f"{app}-{stamp}-{n}" in existing:
        n += 1
    backup_id = f"{app}-{stamp}-{n}"
    folder = _dir(store)
    atomic_write_bytes(folder / f"{backup_id}.bak", content, mode=0o600)
    meta = {
        "id": backup_id,
        "app": app,
        "original": str(original),
        "profile": profile,
        "taken_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    atomic_write_text(folder / f"{backup_id}.json", json.dumps(meta, indent=2) + "\n", mode=0o600)
    return backup_id


def list_backups(store: ProfileStore) -> list[Backup]:
    folder = _dir(store)
    if not folder.is_dir():
        return []
    out = []
    for meta_path in sorted(folder.glob("*.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        out.append(
            Backup(
                meta["id"],
                meta["app"],
                meta["original"],
                meta["profile"],
                meta["taken_at"],
                meta_path.with_suffix(".bak"),
            )
        )
    return sorted(out, key=lambda b: (b.taken_at, b.id))


def prune(store: ProfileStore, app: str, keep: int = KEEP_PER_APP) -> None:
    mine = [b for b in list_backups(store) if b.app == app]
    for backup in mine[:-keep] if len(mine) > keep else []:
        backup.path.unlink(missing_ok=True)
        backup.path.with_suffix(".json").unlink(missing_ok=True)


def restore(store: ProfileStore, backup_id: str) -> Backup:
    """Put a backup back in place (the current file is backed up first)."""
    found = {b.id: b for b in list_backups(store)}.get(backup_id)
    if found is None:
        raise ProfileError(
            f"backup {backup_id!r} not found; `judgeaudit profile backups` lists them"
        )
    from judgeaudit.profiles.switch import file_lock

    target = Path(found.original)
    with file_lock(store.root / "locks" / f"{found.app}.lock"):
        real = Path(os.path.realpath(target))
        if real.exists():
            save(store, found.app, target, real.read_bytes(), f"before restore of {backup_id}")
            mode = stat.S_IMODE(real.stat().st_mode)
        else:
            mode = 0o600
        atomic_write_bytes(real, found.path.read_bytes(), mode=mode)
    return found

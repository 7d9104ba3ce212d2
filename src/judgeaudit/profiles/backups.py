"""Backups of live tool files, taken before every write; listed, restorable, bounded.

Each backup keeps the file's bytes (0600) and the ownership ledger that belonged to them, so a
restore also restores what judgeaudit owns in the file. An inline key judgeaudit itself wrote is
never kept in a backup: it is replaced by a marker and put back from the keyring on restore. A
corrupt backup is reported by name and skipped; it never breaks a switch.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeaudit.fsutil import atomic_write_bytes, atomic_write_text
from judgeaudit.profiles.model import ProfileError

if TYPE_CHECKING:
    from judgeaudit.profiles.store import ProfileStore

KEEP_PER_APP = 20
REDACTED_MARK = "judgeaudit-redacted: the key lives in the keyring entry "


@dataclass(frozen=True)
class Backup:
    id: str
    app: str
    original: str
    profile: str
    taken_at: str
    path: Path
    ledger: dict[str, Any] | None = None  # None: a backup from before ledgers existed
    created: bool = False
    active: str | None = None
    redacted: list[dict[str, str]] = field(default_factory=list)


def backup_dir(store: ProfileStore) -> Path:
    return store.root / "backups"


def save(
    store: ProfileStore,
    app: str,
    original: Path,
    content: bytes,
    profile: str,
    *,
    ledger: dict[str, Any] | None = None,
    created: bool = False,
    active: str | None = None,
    redacted: list[dict[str, str]] | None = None,
) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    existing = {b.id for b in scan(store)[0]}
    folder = backup_dir(store)
    n = 1
    while f"{app}-{stamp}-{n}" in existing or (folder / f"{app}-{stamp}-{n}.json").exists():
        n += 1
    backup_id = f"{app}-{stamp}-{n}"
    atomic_write_bytes(folder / f"{backup_id}.bak", content, mode=0o600)
    meta = {
        "id": backup_id,
        "app": app,
        "original": str(original),
        "profile": profile,
        "taken_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "ledger": ledger or {},
        "created": created,
        "active": active,
        "redacted": redacted or [],
    }
    atomic_write_text(folder / f"{backup_id}.json", json.dumps(meta, indent=2) + "\n", mode=0o600)
    return backup_id


def _load(meta_path: Path) -> Backup:
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    if not isinstance(meta, dict):
        raise ValueError("not a JSON object")
    for key in ("id", "app", "original", "profile", "taken_at"):
        if not isinstance(meta.get(key), str):
            raise ValueError(f"{key} missing")
    if not meta_path.with_suffix(".bak").is_file():
        raise ValueError("its .bak file is missing")
    ledger = meta.get("ledger")
    return Backup(
        meta["id"],
        meta["app"],
        meta["original"],
        meta["profile"],
        meta["taken_at"],
        meta_path.with_suffix(".bak"),
        ledger=ledger if isinstance(ledger, dict) else None,
        created=bool(meta.get("created")),
        active=meta.get("active") if isinstance(meta.get("active"), str) else None,
        redacted=[r for r in meta.get("redacted") or [] if isinstance(r, dict)],
    )


def scan(store: ProfileStore) -> tuple[list[Backup], list[str]]:
    """Good backups (oldest first) and one line for each bad one."""
    folder = backup_dir(store)
    if not folder.is_dir():
        return [], []
    good, bad = [], []
    for meta_path in sorted(folder.glob("*.json")):
        try:
            good.append(_load(meta_path))
        except FileNotFoundError:
            continue  # pruned meanwhile
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            bad.append(f"{meta_path}: unreadable backup ({exc}); move it aside or delete it")
    return sorted(good, key=lambda b: (b.taken_at, b.id)), bad


def list_backups(store: ProfileStore) -> list[Backup]:
    return scan(store)[0]


def prune(store: ProfileStore, app: str, keep: int = KEEP_PER_APP) -> None:
    mine = [b for b in list_backups(store) if b.app == app]
    for backup in mine[:-keep] if len(mine) > keep else []:
        backup.path.unlink(missing_ok=True)
        backup.path.with_suffix(".json").unlink(missing_ok=True)


def find(store: ProfileStore, backup_id: str) -> Backup:
    good, bad = scan(store)
    found = {b.id: b for b in good}.get(backup_id)
    if found is None:
        broken = [line for line in bad if f"{backup_id}.json" in line]
        raise ProfileError(
            broken[0]
            if broken
            else f"backup {backup_id!r} not found; `judgeaudit profile backups` lists them"
        )
    return found


def remove_leftover_temps(folder: Path, name_prefix: str) -> int:
    """Delete temp files an interrupted atomic write left behind (called under the lock)."""
    removed = 0
    if not folder.is_dir():
        return 0
    for leftover in folder.glob(f".{name_prefix}*.tmp"):
        with contextlib.suppress(OSError):
            leftover.unlink()
            removed += 1
    return removed


def restore(store: ProfileStore, backup_id: str) -> Backup:
    """Put a backup back in place with its ownership state (the current file is backed up)."""
    from judgeaudit.profiles.switch import restore_backup

    return restore_backup(store, find(store, backup_id))

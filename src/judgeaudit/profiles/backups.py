"""Backups of live tool files, taken before every write; listed, restorable, bounded.

Each backup keeps the file's bytes (0600), its mode and the ownership ledger that belonged to
them, so a restore also restores what judgeaudit owns in the file. The backups one switch
(``use``/``off``/``restore``) takes share a transaction id, and a file that switch created gets
an "absent" record: restoring any of them restores the whole switch. No key judgeaudit handles
is kept in a backup: an inline key judgeaudit wrote and a leftover token it removed are replaced
by markers and put back from the keyring on restore (:mod:`.backupkeys`); the user's own other
values stay (the backup gives their file back whole), and what shows a backup masks them
(:func:`~judgeaudit.profiles.diffview.masked_file`). A corrupt backup is reported by
name and skipped; it never breaks a switch. The last ``KEEP_PER_APP`` switches per app are kept.
"""

from __future__ import annotations

import contextlib
import json
import secrets as pysecrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeaudit.fsutil import atomic_write_bytes, atomic_write_text, private_dir
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
    redacted: list[dict[str, Any]] = field(default_factory=list)
    txn: str = ""  # the switch that took it; "" (older backups): the backup's own id
    mode: int | None = None  # the file's permission bits when it was backed up
    absent: bool = False  # the file did not exist: restoring the switch removes it
    project: str | None = None  # a project binding's file: ``active`` is that project's binding
    set_aside: str | None = None  # a restore over an unreadable file kept that file here
    unchanged: bool = False  # a restore found the file equal to this backup and wrote nothing
    record_reset: bool = False  # ... and set judgeaudit's record (active, owned) back to it

    @property
    def switch(self) -> str:
        return self.txn or self.id


#: What a backup's ``profile`` holds when it was taken by ``profile off`` or by a restore (the
#: ``off`` label may be followed by `` (project DIR)``); else it is the profile switched to.
OFF_LABEL = "judgeaudit off"
RESTORE_LABEL = "before restore of "


def marker_texts(b: Backup) -> frozenset[str]:
    """The exact marker texts ``b`` holds in place of its tokens (each names a keyring entry,
    no secret): what a preview shows as they are."""
    return frozenset(REDACTED_MARK + str(m.get("key", "")) for m in b.redacted)


def occasion(b: Backup, brief: bool = False) -> str:
    """What the backup was taken before, to follow the word "before": ``switching to NAME``,
    ``turning judgeaudit off``, ``restoring ID``; ``brief`` (a table column headed "taken
    before"): ``switch to NAME``, ``judgeaudit off``, ``a restore``. Never the bare NAME: it
    reads as the profile the backup holds, which is the one active *before* that switch."""
    label = b.profile
    if label.startswith(RESTORE_LABEL):
        return "a restore" if brief else f"restoring {label.removeprefix(RESTORE_LABEL)}"
    if label == OFF_LABEL or label.startswith(OFF_LABEL + " ("):
        return label if brief else f"turning {label}"
    return f"switch to {label}" if brief else f"switching to {label}"


def new_transaction(app: str) -> str:
    """One id for every backup a switch takes."""
    return f"{app}-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{pysecrets.token_hex(3)}"


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
    redacted: list[dict[str, Any]] | None = None,
    txn: str = "",
    mode: int | None = None,
    absent: bool = False,
    project: str | None = None,
) -> str:
    """Keep ``content`` (``absent``: a record that the file did not exist) with its metadata."""
    now = time.gmtime()  # one instant for the id and taken_at: they order backups together
    stamp = time.strftime("%Y%m%dT%H%M%S", now)
    folder = private_dir(backup_dir(store))  # its file names say which tools and when
    # After the highest counter of this second, never a gap prune left: a reused low counter
    # would sort before the backups it follows, and the next prune would drop it at once.
    same_second = [p.stem.rsplit("-", 1)[-1] for p in folder.glob(f"{app}-{stamp}-*.json")]
    n = max((int(c) for c in same_second if c.isdigit()), default=0) + 1
    backup_id = f"{app}-{stamp}-{n}"
    atomic_write_bytes(folder / f"{backup_id}.bak", content, mode=0o600)
    meta = {
        "id": backup_id,
        "app": app,
        "original": str(original),
        "profile": profile,
        "taken_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", now),
        "ledger": ledger or {},
        "created": created,
        "active": active,
        "redacted": redacted or [],
        "txn": txn or backup_id,
        "mode": mode,
        "absent": absent,
        "project": project,
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
    mode = meta.get("mode")
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
        txn=str(meta["txn"]) if isinstance(meta.get("txn"), str) else "",
        mode=mode if isinstance(mode, int) and not isinstance(mode, bool) else None,
        absent=meta.get("absent") is True,
        project=meta.get("project") if isinstance(meta.get("project"), str) else None,
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
    return sorted(good, key=_taken_order), bad


def _taken_order(backup: Backup) -> tuple[str, int, str]:
    """Oldest first: by time, then by the counter of backups taken in the same second
    (``claude-20250101T000000-10`` after ``-9``, which a plain string sort gets wrong)."""
    counter = backup.id.rsplit("-", 1)[-1]
    return backup.taken_at, int(counter) if counter.isdigit() else 0, backup.id


def list_backups(store: ProfileStore) -> list[Backup]:
    return scan(store)[0]


def switch_of(store: ProfileStore, found: Backup) -> list[Backup]:
    """Every backup the switch that took ``found`` took (oldest first)."""
    return [b for b in list_backups(store) if b.switch == found.switch]


def prune(store: ProfileStore, app: str, keep: int = KEEP_PER_APP) -> None:
    """Keep the backups of the last ``keep`` switches of ``app`` (never half a switch)."""
    mine = [b for b in list_backups(store) if b.app == app]
    switches = list(dict.fromkeys(b.switch for b in mine))  # oldest first
    gone = set(switches[:-keep]) if len(switches) > keep else set()
    for backup in mine:
        if backup.switch in gone:
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

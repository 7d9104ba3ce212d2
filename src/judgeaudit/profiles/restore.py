"""``profile restore ID``: put back the whole switch that took backup ``ID``.

A switch (``use``/``off``) writes several files at once: Codex's ``config.toml`` and the
per-profile files, and restoring only one of them would leave the others out of step (a
``config.toml`` naming a profile whose file is gone). So a restore puts back every file that
switch backed up, removes the files it created, and restores the ownership ledger, modes and
active profile that belonged to them. It is itself a transaction: the current files are
backed up first (one switch, so a restore can be undone the same way), keys come back from the
keyring or nothing is written, a file its owner made read-only is refused as a switch refuses
it, and a failure puts every file back as it was.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

from judgeaudit.fsutil import atomic_write_bytes
from judgeaudit.profiles import active as active_here
from judgeaudit.profiles import backupkeys, backups, project
from judgeaudit.profiles.livefile import (
    mode_of,
    read_live,
    refuse_read_only,
    switch_lock,
    write_live,
)
from judgeaudit.profiles.model import ProfileError
from judgeaudit.profiles.paths import live_file
from judgeaudit.profiles.store import ProfileStore, SwitchState
from judgeaudit.profiles.targets import claude

MAIN_FILES = ("settings.json", "config.toml")  # the file a tool reads (not a -p profile file)


def restore_backups(
    store: ProfileStore, named: backups.Backup, group: list[backups.Backup]
) -> list[backups.Backup]:
    """Restore every backup of ``group`` (the switch that took ``named``) as one transaction."""
    with switch_lock(store.root):
        # Every key first: a missing one refuses the restore before anything is written.
        contents = {
            b.id: None if b.absent else backupkeys.put_keys_back(b, b.path.read_bytes())
            for b in group
        }
        currents = {b.id: read_live(Path(b.original)) for b in group}
        state = store.state()
        if all(currents[b.id] == contents[b.id] and _same_mode(b) for b in group):
            return _already_equal(store, state, named, group)
        # A file its owner made read-only is refused as a switch refuses it, before any backup.
        refuse_read_only(Path(b.original) for b in group if currents[b.id] != contents[b.id])
        txn = backups.new_transaction(named.app)
        label = f"{backups.RESTORE_LABEL}{named.id}"
        previous = {}
        aside: dict[str, str] = {}
        for b in group:
            target = Path(b.original)
            current = currents[b.id]
            previous[b.id] = (current, mode_of(target))
            if current == contents[b.id]:
                continue
            if current is not None and not _readable(b.app, target, current):
                aside[b.id] = str(_set_aside(target, current, txn))
            else:
                where = Path(b.project) if b.project else None
                backupkeys.take(store, state, b.app, target, current, label, txn, where)
        written: list[backups.Backup] = []
        try:
            for b in group:
                write_live(Path(b.original), contents[b.id], mode=_mode(b))
                written.append(b)
        except BaseException:
            for b in written:
                content, mode = previous[b.id]
                write_live(Path(b.original), content, mode=mode)
            raise
        for b in group:
            _restore_ownership(state, b)
        _restore_active(state, named.app, group)
        store.save_state(state)
        backups.prune(store, named.app)
        backupkeys.forget_unreferenced_secrets(store, state)
    return [dataclasses.replace(b, set_aside=aside.get(b.id)) for b in group]


def _mode(b: backups.Backup) -> int | None:
    """The permission bits a restore gives the file (``None``: as the write leaves them)."""
    return b.mode if b.mode is not None else (0o600 if b.redacted else None)


def _same_mode(b: backups.Backup) -> bool:
    return b.absent or _mode(b) is None or mode_of(Path(b.original)) == _mode(b)


def _already_equal(
    store: ProfileStore, state: SwitchState, named: backups.Backup, group: list[backups.Backup]
) -> list[backups.Backup]:
    """Every file already equals its backup: none is written and no backup taken (a restore
    said "restored" and had done nothing). Only judgeaudit's record of that switch (which
    profile is active, what it owns) is set back if a hand edit left it otherwise."""
    before = copy.deepcopy(state)
    for b in group:
        _restore_ownership(state, b)
    _restore_active(state, named.app, group)
    reset = state != before
    if reset:
        store.save_state(state)
    return [dataclasses.replace(b, unchanged=True, record_reset=reset) for b in group]


def unchanged_line(b: backups.Backup) -> str:
    """What a restore that found ``b``'s file as the backup has it says (CLI and app)."""
    what = "does not exist, as before that switch" if b.absent else "already equals its backup"
    if b.record_reset:
        return (
            f"{b.original} {what} ({b.id}): the file was not written; judgeaudit's record of "
            "which profile is active there was set back to that switch's"
        )
    return f"{b.original} {what} ({b.id}): nothing was changed"


def restore_switch(store: ProfileStore, backup_id: str) -> list[backups.Backup]:
    """Put back every file of the switch that took ``backup_id``, with its ownership state and
    active profile (the current files are backed up first, as one switch)."""
    found = backups.find(store, backup_id)
    return restore_backups(store, found, backups.switch_of(store, found))


def restore(store: ProfileStore, backup_id: str) -> backups.Backup:
    """:func:`restore_switch`, returning the backup that was named."""
    restored = restore_switch(store, backup_id)
    return next(b for b in restored if b.id == backup_id)


def _readable(app: str, target: Path, current: bytes) -> bool:
    """Whether the current file can be backed up (a Claude file is parsed to take keys out)."""
    if app != "claude":
        return True
    try:
        claude.parse(target, current)
    except ProfileError:
        return False
    return True


def _set_aside(target: Path, current: bytes, txn: str) -> Path:
    """An unreadable file cannot have its keys taken out into a backup: it is kept as it is,
    beside itself (0600), and the restore goes on — restoring is the way out of a broken file."""
    aside = target.with_name(f"{target.name}.unreadable-{txn}")
    atomic_write_bytes(aside, current, mode=0o600)
    return aside


def _restore_ownership(state: SwitchState, found: backups.Backup) -> None:
    key = found.original
    if found.absent or (found.ledger is not None and not found.ledger):
        state["owned"].pop(key, None)
    elif found.ledger is not None:
        state["owned"][key] = found.ledger
    if found.absent:
        if key in state["created"]:
            state["created"].remove(key)
    elif found.created and key not in state["created"]:
        state["created"].append(key)
    elif not found.created and found.ledger is not None and key in state["created"]:
        state["created"].remove(key)  # the file was the user's before that switch


def _restore_active(state: SwitchState, app: str, group: list[backups.Backup]) -> None:
    """The profile that was active before that switch (none, if judgeaudit owned nothing); for
    a project's file, the profile that was bound in that project (the global one stays)."""
    for b in group:
        if b.project is not None:
            project.record(state, Path(b.project), app, b.active)
    group = [b for b in group if b.project is None]
    if not group:
        return
    active = next((b.active for b in group if b.active), None)
    main = [b for b in group if Path(b.original).name in MAIN_FILES]
    if active:  # that file's own marker (another CLAUDE_CONFIG_DIR keeps its own)
        active_here.record_at(state, main[0].original if main else str(live_file(app)), active)
    elif main and all(b.absent or (b.ledger is not None and not b.ledger) for b in main):
        active_here.record_at(state, main[0].original, None)

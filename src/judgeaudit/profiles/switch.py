"""Switching a profile is a transaction.

read live files (regular files only) -> refuse if they do not parse -> plan + diff -> lock ->
clean temp files an interrupted switch left -> re-read (re-plan if changed) -> keep replaced
secrets in the keyring -> back up (with the ownership ledger) -> temp file, fsync, rename (same
mode, through symlinks) -> read back and validate -> record ledger and active profile. Any
failure leaves the old files byte-for-byte. ``profile off`` is the same transaction with no
profile: every key judgeaudit wrote removed, every user value it replaced put back.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit

from judgeaudit.profiles import backups, bridgeopt, secrets, shadowing
from judgeaudit.profiles.jsonedit import dump_value
from judgeaudit.profiles.ledger import referenced_secrets
from judgeaudit.profiles.livefile import read_live, real_path, switch_lock, write_live
from judgeaudit.profiles.model import APPS, Profile, ProfileError
from judgeaudit.profiles.paths import claude_settings, codex_home
from judgeaudit.profiles.redact import redact, secret_values
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.targets import FilePlan, claude, codex

INLINE = "env.ANTHROPIC_AUTH_TOKEN"


@dataclass
class SwitchResult:
    profile: str
    app: str
    plans: list[FilePlan]
    diff: str
    applied: bool
    backups: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _load_secret(ref: str) -> str | None:
    return secrets.get_key(ref)


def _files(app: str, profile: Profile | None, state: dict[str, Any]) -> list[tuple[Path, str]]:
    if app == "claude":
        return [(claude_settings(), "claude")]
    if app == "codex":
        home = codex_home()
        files = [(home / "config.toml", "codex")]
        if profile is not None:
            files.append((home / f"{profile.name}.config.toml", "codex-profile"))
        else:  # off: every per-profile file judgeaudit wrote
            files += [
                (Path(p), "codex-profile")
                for p in state["owned"]
                if Path(p).parent == home
                and p.endswith(".config.toml")
                and Path(p).name != "config.toml"
            ]
        return files
    return []


def plan_app(
    store: ProfileStore, app: str, profile: Profile | None, *, keep_conflicts: bool = False
) -> list[FilePlan]:
    """Plans for every file of ``app`` (``profile`` None: judgeaudit off)."""
    state = store.state()
    created = set(state["created"])
    plans = []
    for path, kind in _files(app, profile, state):
        raw = read_live(path)
        ledger = state["owned"].get(str(path), {})
        if kind == "claude":
            inline = None
            if profile is not None and profile.option("key_mode") == "inline":
                inline = secrets.resolve_key(profile)
            plan = claude.plan(
                path,
                raw,
                profile,
                ledger,
                _load_secret,
                inline_key=inline,
                keep_conflicts=keep_conflicts,
                created=str(path) in created,
            )
        else:
            plan = codex.plan_file(
                path, raw, profile, ledger, _load_secret, kind=kind, created=str(path) in created
            )
        plans.append(plan)
    if profile is not None and bridgeopt.uses_bridge(profile) and plans:
        plans[0].notes.append(bridgeopt.use_note(profile))  # shown in the diff preview
    return plans


def _secrets_in(plan: FilePlan) -> set[str]:
    found: set[str] = set()
    for content in (plan.before, plan.after):
        if not content:
            continue
        try:
            text = content.decode("utf-8")
            data = json.loads(text) if plan.kind == "claude" else tomlkit.parse(text).unwrap()
        except (ValueError, UnicodeDecodeError, tomlkit.exceptions.ParseError):
            continue
        found |= secret_values(data)
    for raw in plan.save_secrets.values():
        found.add(raw.strip('"'))
    return found


def render_diff(plans: list[FilePlan], redact_also: list[str] | None = None) -> str:
    """The unified diff of every file, with what it replaces or removes; keys masked."""
    chunks = []
    for plan in plans:
        before = (plan.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        after = (plan.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        label = str(plan.path)
        text = "".join(
            difflib.unified_diff(
                before,
                after,
                label if plan.before is not None else "/dev/null",
                label if plan.after is not None else "/dev/null",
            )
        )
        text = text or f"{label}: no change\n"
        text += "".join(f"  note: {note}\n" for note in plan.notes)
        chunks.append(redact(text, [*_secrets_in(plan), *(redact_also or [])]))
    return "".join(chunks)


def _backup_content(
    plan: FilePlan, old_ledger: dict[str, Any]
) -> tuple[bytes, list[dict[str, str]]]:
    """The bytes to back up: an inline key judgeaudit wrote is swapped for a keyring marker."""
    assert plan.before is not None
    entry = old_ledger.get(INLINE)
    if plan.kind != "claude" or not entry or not entry.get("keyname"):
        return plan.before, []
    doc = claude.parse(plan.path, plan.before)
    view = claude.SettingsDoc(doc)
    if view.current_raw(INLINE) is None:
        return plan.before, []
    view.put_raw(INLINE, dump_value(backups.REDACTED_MARK + entry["keyname"]))
    return doc.text.encode("utf-8"), [{"path": INLINE, "key": entry["keyname"]}]


def _apply(
    store: ProfileStore,
    app: str,
    plans: list[FilePlan],
    label: str,
    active: str | None,
    result: SwitchResult,
) -> None:
    """Write ``plans`` as one transaction (the caller holds the switch lock)."""
    state = store.state()
    for ref, raw in {r: v for p in plans for r, v in p.save_secrets.items()}.items():
        secrets.set_saved(ref, raw)  # the user's replaced secrets, before any file changes
        if ref not in state.setdefault("saved", []):
            state["saved"].append(ref)
    written: list[FilePlan] = []
    try:
        for plan in plans:
            if not plan.changes:
                continue
            if plan.before is not None:
                old_ledger = state["owned"].get(str(plan.path), {})
                content, redacted = _backup_content(plan, old_ledger)
                result.backups.append(
                    backups.save(
                        store,
                        app,
                        plan.path,
                        content,
                        label,
                        ledger=old_ledger,
                        created=str(plan.path) in state["created"],
                        active=state["active"].get(app),
                        redacted=redacted,
                    )
                )
            write_live(plan.path, plan.after, secret=plan.secret)
            written.append(plan)
            if plan.after is not None:
                _validate(plan)
    except BaseException:
        for plan in written:  # put every file back exactly as it was
            write_live(plan.path, plan.before)
        raise
    for plan in plans:
        key = str(plan.path)
        if plan.ledger:
            state["owned"][key] = plan.ledger
        else:
            state["owned"].pop(key, None)
        if plan.before is None and plan.after is not None and key not in state["created"]:
            state["created"].append(key)
        if plan.after is None and key in state["created"]:
            state["created"].remove(key)
    if active is None:
        state["active"].pop(app, None)
    else:
        state["active"][app] = active
    store.save_state(state)
    backups.prune(store, app)
    _forget_unreferenced_secrets(store, state)


def _forget_unreferenced_secrets(store: ProfileStore, state: dict[str, Any]) -> None:
    """Delete kept user values that no ledger and no remaining backup can put back any more,
    so the keyring does not fill up with ``saved-…`` entries over hundreds of switches."""
    saved: list[str] = state.get("saved", [])
    if not saved:
        return
    ledgers = list(state["owned"].values())
    ledgers += [b.ledger for b in backups.list_backups(store) if b.ledger]
    live = referenced_secrets(ledgers)
    gone = [ref for ref in saved if ref not in live]
    if not gone:
        return
    for ref in gone:
        secrets.delete_saved(ref)
    state["saved"] = [ref for ref in saved if ref in live]
    store.save_state(state)


def _validate(plan: FilePlan) -> None:
    written = real_path(plan.path).read_bytes()
    if plan.kind == "claude":
        claude.validate(plan.path, written, plan)
    else:
        codex.validate(plan.path, written, plan)


def _transaction(
    store: ProfileStore,
    app: str,
    profile: Profile | None,
    *,
    dry_run: bool,
    keep_conflicts: bool,
    before_write: Callable[[], None] | None,
) -> SwitchResult:
    plans = plan_app(store, app, profile, keep_conflicts=keep_conflicts)
    name = profile.name if profile else "off"
    warnings = [w for p in plans for w in p.warnings]
    if profile is not None:
        warnings += shadowing.warnings_for(app, profile)
    result = SwitchResult(name, app, plans, render_diff(plans), False, warnings=warnings)
    if dry_run:
        return result
    if before_write:
        before_write()
    with switch_lock(store.root):
        for plan in plans:
            backups.remove_leftover_temps(real_path(plan.path).parent, real_path(plan.path).name)
        backups.remove_leftover_temps(backups.backup_dir(store), app)
        backups.remove_leftover_temps(store.root, "state.json")
        # Plan again under the lock: the files or the ledger may have changed since the preview.
        plans = plan_app(store, app, profile, keep_conflicts=keep_conflicts)
        result.plans, result.diff = plans, render_diff(plans)
        label = profile.name if profile else "judgeaudit off"
        _apply(store, app, plans, label, profile.name if profile else None, result)
    result.applied = True
    return result


def use_profile(
    store: ProfileStore,
    name: str,
    *,
    dry_run: bool = False,
    keep_conflicts: bool = False,
    before_write: Callable[[], None] | None = None,
) -> SwitchResult:
    """Switch ``name`` in; ``before_write`` is a test hook that runs after planning."""
    profile = store.get(name)
    return _transaction(
        store,
        profile.app,
        profile,
        dry_run=dry_run,
        keep_conflicts=keep_conflicts,
        before_write=before_write,
    )


def turn_off(store: ProfileStore, app: str, *, dry_run: bool = False) -> SwitchResult:
    """Undo judgeaudit in ``app``'s files: the user's own settings back."""
    if app not in APPS:
        raise ProfileError(f"app {app!r}: use one of {', '.join(APPS)}")
    return _transaction(store, app, None, dry_run=dry_run, keep_conflicts=False, before_write=None)


def restore_backup(store: ProfileStore, found: backups.Backup) -> backups.Backup:
    """Put a backup back, with the ownership state and active profile that belonged to it."""
    target = Path(found.original)
    with switch_lock(store.root):
        content = found.path.read_bytes()
        for marker in found.redacted:
            key = secrets.get_key(marker["key"])
            if not key:
                raise ProfileError(
                    f"backup {found.id}: it held the inline key of keyring entry "
                    f"{marker['key']!r}, which is gone; `judgeaudit key set {marker['key']}` "
                    "first, nothing was changed"
                )
            doc = claude.parse(target, content)
            claude.SettingsDoc(doc).put_raw(marker["path"], dump_value(key))
            content = doc.text.encode("utf-8")
        current = read_live(target)
        state = store.state()
        if current is not None:
            backups.save(
                store,
                found.app,
                target,
                current,
                f"before restore of {found.id}",
                ledger=state["owned"].get(str(target), {}),
                created=str(target) in state["created"],
                active=state["active"].get(found.app),
            )
        write_live(target, content, secret=bool(found.redacted))
        if found.ledger is not None:
            if found.ledger:
                state["owned"][str(target)] = found.ledger
            else:
                state["owned"].pop(str(target), None)
        if found.created and str(target) not in state["created"]:
            state["created"].append(str(target))
        if found.active:
            state["active"][found.app] = found.active
        elif (
            found.ledger is not None
            and not found.ledger
            and target.name
            in (
                "settings.json",
                "config.toml",
            )
        ):
            state["active"].pop(found.app, None)
        store.save_state(state)
    return found

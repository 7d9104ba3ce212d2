"""Switching a profile is a transaction.

read live file -> refuse if it does not parse -> plan + diff -> lock -> re-read (re-plan if it
changed) -> back up -> temp file, fsync, rename (same mode, through symlinks) -> read back and
validate -> record the active profile. Any failure leaves the old file byte-for-byte.
"""

from __future__ import annotations

import contextlib
import difflib
import fcntl
import os
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from judgeaudit.fsutil import atomic_write_bytes
from judgeaudit.profiles import backups
from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.paths import claude_settings, codex_home
from judgeaudit.profiles.secrets import resolve_key
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.targets import FilePlan, claude, codex

LOCK_TIMEOUT_S = 30.0
REPLAN_LIMIT = 5


@dataclass
class SwitchResult:
    profile: str
    app: str
    plans: list[FilePlan]
    diff: str
    applied: bool
    backups: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read: {exc.strerror}") from None


def plan_switch(store: ProfileStore, profile: Profile) -> list[FilePlan]:
    owned = store.state().get("owned", {})
    if profile.app == "claude":
        path = claude_settings()
        inline = resolve_key(profile) if profile.option("key_mode") == "inline" else None
        return [claude.plan(path, _read(path), profile, owned.get(str(path), []), inline)]
    if profile.app == "codex":
        home = codex_home()
        main, own = home / "config.toml", home / f"{profile.name}.config.toml"
        return [
            codex.plan_main(main, _read(main), profile),
            codex.plan_profile_file(own, _read(own), profile),
        ]
    return []  # sdk profiles write no file; `use` records them as active


def render_diff(plans: list[FilePlan], redact: list[str]) -> str:
    chunks = []
    for plan in plans:
        before = (plan.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        after = plan.after.decode("utf-8", "replace").splitlines(keepends=True)
        label = str(plan.path)
        text = "".join(
            difflib.unified_diff(
                before, after, label if plan.before is not None else "/dev/null", label
            )
        )
        for secret in redact:
            if secret and len(secret) >= 4:
                text = text.replace(secret, "…" + secret[-4:])
        chunks.append(text or f"{label}: no change\n")
    return "".join(chunks)


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ProfileError(
                        f"another judgeaudit is switching profiles ({path} is locked); try again"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _write(plan: FilePlan) -> None:
    """Write through a symlink to its target, keeping the target's mode (0600 for secrets)."""
    real = Path(os.path.realpath(plan.path))
    mode = stat.S_IMODE(real.stat().st_mode) if real.exists() else 0o600
    if plan.secret:
        mode = 0o600
    atomic_write_bytes(real, plan.after, mode=mode)


def _validate(plan: FilePlan) -> None:
    written = Path(os.path.realpath(plan.path)).read_bytes()
    if plan.path.name == "settings.json":
        claude.validate(plan.path, written, plan)
    else:
        codex.validate(plan.path, written, plan)


def use_profile(
    store: ProfileStore,
    name: str,
    *,
    dry_run: bool = False,
    before_write: Callable[[], None] | None = None,
) -> SwitchResult:
    """Switch ``name`` in; ``before_write`` is a test hook that runs after planning."""
    profile = store.get(name)
    plans = plan_switch(store, profile)
    redact = [resolve_key(profile)] if profile.option("key_mode") == "inline" else []
    result = SwitchResult(
        profile.name,
        profile.app,
        plans,
        render_diff(plans, redact),
        False,
        warnings=[w for p in plans for w in p.warnings],
    )
    if dry_run:
        return result
    if before_write:
        before_write()
    with file_lock(store.root / "locks" / f"{profile.app}.lock"):
        for _ in range(REPLAN_LIMIT):
            if all(_read(p.path) == p.before for p in plans):
                break
            plans = plan_switch(store, profile)  # the file changed since we planned: plan again
        else:
            raise ProfileError(f"{profile.app} settings keep changing while switching; try again")
        result.plans, result.diff = plans, render_diff(plans, redact)
        written: list[FilePlan] = []
        try:
            for plan in plans:
                if plan.before is not None and plan.before == plan.after:
                    continue
                if plan.before is not None:
                    result.backups.append(
                        backups.save(store, profile.app, plan.path, plan.before, profile.name)
                    )
                _write(plan)
                written.append(plan)
                _validate(plan)
        except BaseException:
            for plan in written:  # put every file back exactly as it was
                real = Path(os.path.realpath(plan.path))
                if plan.before is None:
                    real.unlink(missing_ok=True)
                else:
                    atomic_write_bytes(real, plan.before, mode=stat.S_IMODE(real.stat().st_mode))
            raise
        state = store.state()
        state["active"][profile.app] = profile.name
        for plan in plans:
            state["owned"][str(plan.path)] = plan.owned
        store.save_state(state)
        backups.prune(store, profile.app)
    result.applied = True
    return result

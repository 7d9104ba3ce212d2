"""Presets (read-only, from the repository) and user profiles (platform config dir)."""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NotRequired, TypedDict, cast

from judgeaudit import safeio
from judgeaudit.fsutil import atomic_write_text
from judgeaudit.profiles.ledger import Entry
from judgeaudit.profiles.model import (
    Profile,
    ProfileError,
    check_name,
    load_profile,
    profile_from_table,
    read_profile_table,
)
from judgeaudit.profiles.paths import CONFIG_ENV, config_dir, live_file, presets_dir


class SwitchState(TypedDict):
    """``state.json``: what the switch wrote and owns. Every switch, restore, import and doctor
    reads it; only the switch transaction, restore and ``codex-history`` write it."""

    active: dict[str, str]  # "sdk" -> its active profile (no file: a reminder only)
    #: live file -> the profile switched on in it (``profiles.active`` reads it for this
    #: environment: another CLAUDE_CONFIG_DIR or CODEX_HOME has its own)
    active_at: NotRequired[dict[str, str]]
    owned: dict[str, dict[str, Entry]]  # live file -> its ledger (dotted key -> entry)
    created: list[str]  # live files the switch created (removed again by ``off``)
    saved: NotRequired[list[str]]  # keyring entries holding the user's replaced secrets
    projects: NotRequired[dict[str, dict[str, str]]]  # project dir -> {app: profile}
    created_dirs: NotRequired[list[str]]  # project settings dirs the switch made (``.claude``)
    codex_shared_provider_id: NotRequired[str]  # ``profile codex-history shared --id``


def _mendable(data: dict[str, Any], name: str) -> bool:
    """Whether ``profile edit`` can mend a refused file's table (:meth:`ProfileStore.stored_table`):
    its own name, its options a table."""
    return data.get("name") == name and isinstance(data.get("options", {}), dict)


def _mend(data: dict[str, Any], path: Path, source: str) -> str:
    """``profile list``'s hint of how ``profile edit`` mends a refused user file, where it can
    (not a preset, not a file of another name)."""
    if source != "user" or not _mendable(data, path.stem):
        return ""
    return f"; `judgeaudit profile edit {shlex.quote(path.stem)} --FIELD VALUE` mends a field"


@dataclass
class ProfileStore:
    root: Path
    presets: Path

    @classmethod
    def default(cls) -> ProfileStore:
        return cls(config_dir(), presets_dir())

    @property
    def user_dir(self) -> Path:
        return self.root / "profiles"

    def _files(self) -> dict[str, tuple[Path, str]]:
        found: dict[str, tuple[Path, str]] = {}
        for directory, source in ((self.presets, "preset"), (self.user_dir, "user")):
            if directory.is_dir():
                for path in sorted(directory.glob("*.toml")):
                    found[path.stem] = (path, source)  # a user profile overrides a preset
        return found

    def scan(self) -> tuple[list[Profile], list[str]]:
        """Every profile that loads, and one line for each file that does not."""
        good, bad = [], []
        for path, source in self._files().values():
            try:
                data = read_profile_table(path)
            except ProfileError as exc:
                bad.append(f"{exc} (fix or remove that file)")
                continue
            try:
                good.append(profile_from_table(data, path, source))
            except ProfileError as exc:  # the table read once: its hint says what edit mends
                bad.append(f"{exc} (fix or remove that file){_mend(data, path, source)}")
        return good, bad

    def list(self) -> list[Profile]:
        """The profiles that load; a broken file never hides the others (see :meth:`scan`)."""
        return self.scan()[0]

    def get(self, name: str) -> Profile:
        check_name(name)
        entry = self._files().get(name)
        if entry is None:
            raise ProfileError(
                f"profile {name!r} not found in {self.user_dir} (nor among the presets); "
                f"`judgeaudit profile list` shows them (${CONFIG_ENV} sets that folder)"
            )
        return load_profile(*entry)

    def stored_table(self, name: str, refused: ProfileError) -> dict[str, Any]:
        """User profile ``name``'s file as it stands, unchecked, for ``profile edit`` to mend one
        that no longer loads (a rule added since it was written: ``key_env = "PATH"``); the
        edited whole is checked again before it is saved. ``refused`` (why it did not load) is
        raised where there is no such table to mend: no user file, no TOML table, another name."""
        path = self.user_dir / f"{check_name(name)}.toml"
        try:
            data = read_profile_table(path)
        except ProfileError:
            raise refused from None
        # every key kept: an unknown one (a typo, ``modle``) is refused by the check, not dropped
        if not _mendable(data, name):
            raise refused
        return {**data, "options": dict(data.get("options", {}))}

    def exists(self, name: str) -> bool:
        return name in self._files()

    def save(self, profile: Profile, durable: bool = True) -> Path:
        """Write the profile's file (``durable=False``: unsynced, for an import that syncs once)."""
        path = self.user_dir / f"{check_name(profile.name)}.toml"
        atomic_write_text(path, profile.to_toml(), mode=0o600, durable=durable)
        return path

    def remove(self, name: str) -> None:
        path = self.user_dir / f"{check_name(name)}.toml"
        if not path.exists():
            if self.exists(name):
                raise ProfileError(
                    f"profile {name!r} is a preset shipped with judgeaudit; it cannot be removed"
                )
            raise ProfileError(f"profile {name!r} not found")
        path.unlink()
        from judgeaudit.profiles import secrets  # the keyring: not at the app's first paint

        secrets.drop_bridge_tokens([name])  # a bridged profile's local token goes with it

    # --- state: the active profile per app and the keys we wrote ---------------------------
    @property
    def state_path(self) -> Path:
        return self.root / "state.json"

    def state(self) -> SwitchState:
        raw = safeio.read_optional(self.state_path, "state file", ProfileError)
        if raw is None:
            return {"active": {}, "owned": {}, "created": []}
        try:
            data = safeio.parse_json(raw)
        except ValueError as exc:
            raise ProfileError(
                f"{self.state_path}: unreadable state ({exc}); move it aside"
            ) from None
        if not isinstance(data, dict):
            raise ProfileError(
                f"{self.state_path}: unreadable state (not an object); move it aside"
            )
        data.setdefault("active", {})
        data.setdefault("owned", {})
        data.setdefault("created", [])
        for field, kind, what in (
            ("active", dict, "an object"),
            ("owned", dict, "an object"),
            ("created", list, "a list"),
            ("created_dirs", list, "a list"),
            ("active_at", dict, "an object"),
            ("projects", dict, "an object of {project directory: {app: profile}}"),
        ):
            if not isinstance(data.get(field, kind()), kind):
                raise ProfileError(
                    f"{self.state_path}: unreadable state ({field} must be {what}); move it aside"
                )
        bad = [k for k, v in data["active"].items() if not isinstance(v, str)]
        bad += [k for k, v in data.get("active_at", {}).items() if not isinstance(v, str)]
        bad += [k for k, v in data["owned"].items() if not isinstance(v, dict | list)]
        if bad:
            raise ProfileError(
                f"{self.state_path}: unreadable state (the entry for {bad[0]!r} has the wrong "
                "type); move it aside"
            )
        wrong = _bad_project(data.get("projects", {}))
        if wrong is not None:
            raise ProfileError(
                f"{self.state_path}: unreadable state (projects: the entry for {wrong!r} must "
                "be an absolute directory holding {app: profile}); fix or remove that entry "
                "(a project binding's record), or move the file aside"
            )
        _move_active(data)
        _absolute_paths(data)
        for path, owned in list(data["owned"].items()):
            if isinstance(owned, list):  # before ledgers: the keys we wrote, values unknown
                data["owned"][path] = {key: {"had": False} for key in owned}
        return cast(SwitchState, dict(data))  # the three required fields were checked above

    def save_state(self, state: SwitchState) -> None:
        atomic_write_text(
            self.state_path, json.dumps(state, indent=2, sort_keys=True) + "\n", mode=0o600
        )


def _bad_project(projects: dict[str, Any]) -> str | None:
    """The first ``projects`` key whose entry is not a binding record: an absolute directory
    that can be a file name (no lone surrogate from a ``\\ud800`` escape) mapped to an object of
    app -> profile name (strings)."""
    for directory, apps in projects.items():
        try:
            directory.encode("utf-8")
        except UnicodeEncodeError:
            return directory
        if not os.path.isabs(directory) or not isinstance(apps, dict):
            return directory
        if not all(isinstance(name, str) for name in apps.values()):
            return directory
    return None


def _absolute_paths(data: dict[str, Any]) -> None:
    """Before 2026-12-06 a relative ``CLAUDE_CONFIG_DIR``/``CODEX_HOME`` was stored as given, so
    its marker and ledger matched the same relative name under any directory (``off`` there
    emptied the ledger of the file the switch wrote). Such a key is read as the file under the
    directory it is first read in, as before, and stored absolute from then on."""
    for field in ("active_at", "owned"):
        table = data.get(field, {})
        for path in [p for p in table if not Path(p).is_absolute()]:
            table.setdefault(os.path.abspath(path), table.pop(path))


def _move_active(data: dict[str, Any]) -> None:
    """A state from before ``active_at`` named a Claude or Codex profile per app: it belongs to
    the file a switch in this environment writes (the one that state knew)."""
    at = data.setdefault("active_at", {})
    for app in [a for a in data["active"] if live_file(a) is not None]:
        at.setdefault(str(live_file(app)), data["active"].pop(app))

"""Importing profiles from CC Switch (SQLite ``providers`` table or the older config.json) and
from the plain JSON list ``{"profiles": [{"name", "app", "base_url", "api_key_env"}]}``.

Keys found in those files go into the keyring, never into profile files.
"""

from __future__ import annotations

import json
import re
import sqlite3
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.profiles import secrets
from judgeaudit.profiles.model import Profile, ProfileError, profile_from_dict
from judgeaudit.profiles.store import ProfileStore

APP_ALIASES = {"claude": "claude", "codex": "codex", "terminal": "sdk", "sdk": "sdk"}


@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "name: reason"
    keys_stored: list[str] = field(default_factory=list)


def slug(text: str) -> str:
    value = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-_")[:63]
    return value or "imported"


def _claude_entry(name: str, config: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    env = config.get("env") or {}
    base = env.get("ANTHROPIC_BASE_URL")
    if not base:
        raise ProfileError("no env.ANTHROPIC_BASE_URL")
    key = env.get("ANTHROPIC_AUTH_TOKEN") or env.get("ANTHROPIC_API_KEY")
    data = {
        "name": name,
        "app": "claude",
        "base_url": base,
        "model": env.get("ANTHROPIC_MODEL"),
        "options": {"anthropic_base_url": base.rstrip("/")},
    }
    return data, key


def _codex_entry(name: str, config: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    raw = config.get("config") or ""
    try:
        toml = tomllib.loads(raw) if isinstance(raw, str) else dict(raw)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"its config.toml text does not parse ({exc})") from None
    provider = toml.get("model_provider")
    table = (toml.get("model_providers") or {}).get(provider or "", {})
    base = table.get("base_url")
    if not base:
        raise ProfileError("no model_providers.<id>.base_url (built-in provider?)")
    key = (config.get("auth") or {}).get("OPENAI_API_KEY")
    return {"name": name, "app": "codex", "base_url": base, "model": toml.get("model")}, key


def _store(
    store: ProfileStore, report: ImportReport, data: dict[str, Any], key: str | None, where: str
) -> None:
    name = data["name"]
    if store.exists(name):
        report.skipped.append(f"{name}: a profile with this name exists")
        return
    try:
        if key:
            data["key"] = name
        profile = profile_from_dict({k: v for k, v in data.items() if v is not None}, where)
    except ProfileError as exc:
        report.skipped.append(f"{name}: {exc}")
        return
    if key:
        secrets.set_key(name, key)
        report.keys_stored.append(name)
    store.save(profile)
    report.imported.append(name)


def _entries_from_ccswitch_rows(
    rows: list[tuple[str, str, str]],
) -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for app_type, name, settings in rows:
        try:
            config = json.loads(settings) if isinstance(settings, str) else settings
        except json.JSONDecodeError:
            config = None
        out.append((app_type, name, config if isinstance(config, dict) else {}))
    return out


def import_ccswitch(
    store: ProfileStore, db_path: Path | None = None, config_json: Path | None = None
) -> ImportReport:
    home = Path.home() / ".cc-switch"
    db_path = db_path or home / "cc-switch.db"
    config_json = config_json or home / "config.json"
    entries: list[tuple[str, str, dict[str, Any]]] = []
    if db_path.exists():
        try:
            db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
            rows = db.execute("SELECT app_type, name, settings_config FROM providers").fetchall()
            db.close()
        except sqlite3.Error as exc:
            raise ProfileError(f"{db_path}: cannot read CC Switch providers ({exc})") from None
        entries += _entries_from_ccswitch_rows(rows)
    elif config_json.exists():
        try:
            data = json.loads(config_json.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ProfileError(
                f"{config_json}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg})"
            ) from None
        for app_type in ("claude", "codex"):
            section = data.get(app_type, data if app_type == "claude" else {})
            for provider in (section.get("providers") or {}).values():
                entries.append(
                    (
                        app_type,
                        provider.get("name", ""),
                        provider.get("settingsConfig") or provider.get("settings_config") or {},
                    )
                )
    else:
        raise ProfileError(f"no CC Switch data at {db_path} or {config_json}; pass --db PATH")
    report = ImportReport()
    for app_type, name, config in entries:
        profile_name = slug(f"ccswitch-{app_type}-{name}")
        try:
            if app_type == "claude":
                data, key = _claude_entry(profile_name, config)
            elif app_type == "codex":
                data, key = _codex_entry(profile_name, config)
            else:
                report.skipped.append(f"{profile_name}: app type {app_type!r} is not supported")
                continue
        except ProfileError as exc:
            report.skipped.append(f"{profile_name}: {exc}")
            continue
        _store(store, report, data, key, f"CC Switch provider {name!r}")
    return report


def import_json_list(store: ProfileStore, path: Path) -> ImportReport:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg})") from None
    items = data.get("profiles") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ProfileError(f'{path}: expected {{"profiles": [...]}}')
    report = ImportReport()
    for index, item in enumerate(items):
        where = f"{path}: profiles[{index}]"
        if not isinstance(item, dict) or "name" not in item:
            report.skipped.append(f"{where}: not an object with a name")
            continue
        app = APP_ALIASES.get(str(item.get("app", "")))
        if app is None:
            report.skipped.append(
                f"{item['name']}: app {item.get('app')!r} is not claude, codex or terminal/sdk"
            )
            continue
        entry = {
            "name": slug(str(item["name"])),
            "app": app,
            "base_url": item.get("base_url", ""),
            "model": item.get("model"),
            "key_env": item.get("api_key_env"),
        }
        _store(store, report, entry, None, where)
    return report


def imported_profiles(store: ProfileStore, report: ImportReport) -> list[Profile]:
    return [store.get(name) for name in report.imported]

"""Importing CC Switch providers (its SQLite ``providers`` table, or the older config.json).

Nothing is lost: every row becomes a profile or a skipped line with its reason. Names are unique
and readable for any provider name (the provider ``id`` when the name has no ASCII, so
"火山方舟" and "智谱" never collide; the original name is kept as the description). The row CC
Switch has current is reported (``--activate`` switches to it). Codex keys come from
``auth.json`` (``OPENAI_API_KEY``) or ``experimental_bearer_token``. Providers that only work
through CC Switch's converting proxy are imported and flagged with what to do. Keys go to the
keyring and are never printed.
"""

from __future__ import annotations

import json
import sqlite3
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit.profiles.importers import ImportReport, slug, store_profile
from judgeaudit.profiles.model import ProfileError
from judgeaudit.profiles.redact import secret_values
from judgeaudit.profiles.store import ProfileStore

SUPPORTED = ("claude", "codex")
PROXY_FORMATS = ("openai_chat", "openai_responses")
MANAGED_AUTH = ("github_copilot", "codex_oauth")


@dataclass
class Row:
    id: str
    app: str
    name: str
    config: dict[str, Any]
    meta: dict[str, Any]
    current: bool


def _json(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    try:
        data = json.loads(value) if isinstance(value, str) and value.strip() else {}
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def read_db(db_path: Path) -> list[Row]:
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            columns = {r[1] for r in db.execute("PRAGMA table_info(providers)")}
            if not {"id", "app_type", "name", "settings_config"} <= columns:
                raise ProfileError(f"{db_path}: no CC Switch providers table; pass --db PATH")
            extra = [c if c in columns else "NULL" for c in ("meta", "is_current")]
            rows = db.execute(
                f"SELECT id, app_type, name, settings_config, {extra[0]}, {extra[1]} "
                "FROM providers ORDER BY app_type, sort_index, created_at, id"
                if "sort_index" in columns and "created_at" in columns
                else f"SELECT id, app_type, name, settings_config, {extra[0]}, {extra[1]} "
                "FROM providers ORDER BY app_type, id"
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise ProfileError(f"{db_path}: cannot read CC Switch providers ({exc})") from None
    return [
        Row(str(i), str(app), str(name or ""), _json(cfg), _json(meta), bool(current))
        for i, app, name, cfg, meta, current in rows
    ]


def read_config_json(path: Path) -> list[Row]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{path}: cannot read ({type(exc).__name__})") from None
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg})") from None
    rows = []
    for app in SUPPORTED:
        section = data.get(app, data if app == "claude" else {}) if isinstance(data, dict) else {}
        if not isinstance(section, dict):
            continue
        current = section.get("current")
        for ident, provider in (section.get("providers") or {}).items():
            if not isinstance(provider, dict):
                continue
            config = provider.get("settingsConfig") or provider.get("settings_config") or {}
            rows.append(
                Row(
                    str(provider.get("id", ident)),
                    app,
                    str(provider.get("name", "")),
                    _json(config),
                    _json(provider.get("meta")),
                    ident == current,
                )
            )
    return rows


def profile_names(rows: list[Row]) -> dict[tuple[str, str], str]:
    """(app, id) -> a unique, readable profile name."""
    out: dict[tuple[str, str], str] = {}
    by_name: dict[tuple[str, str], int] = {}
    for row in rows:
        key = (row.app, slug(row.name))
        by_name[key] = by_name.get(key, 0) + 1
    taken: set[str] = set()
    for row in rows:
        base = slug(row.name)
        if not base or by_name[(row.app, base)] > 1:
            ident = slug(row.id) or "provider"
            base = f"{base}-{ident[:8]}" if base else ident[:12]
        stem = f"ccswitch-{row.app}-{base}"[:60].strip("-_")
        name, n = stem, 2
        while name in taken:
            name, n = f"{stem}-{n}", n + 1
        taken.add(name)
        out[(row.app, row.id)] = name
    return out


def _claude(row: Row, name: str) -> tuple[dict[str, Any], str | None, list[str]]:
    env: dict[str, Any] = row.config["env"] if isinstance(row.config.get("env"), dict) else {}
    base = env.get("ANTHROPIC_BASE_URL")
    if row.meta.get("providerType") in MANAGED_AUTH:
        raise ProfileError(
            f"signs in through CC Switch ({row.meta['providerType']}); no key to import"
        )
    if not base:
        raise ProfileError("no env.ANTHROPIC_BASE_URL (the official login?); nothing to import")
    field = row.meta.get("apiKeyField") or "ANTHROPIC_AUTH_TOKEN"
    key = env.get(field) or env.get("ANTHROPIC_AUTH_TOKEN") or env.get("ANTHROPIC_API_KEY")
    options = {"anthropic_base_url": str(base).rstrip("/")}
    for variable, option in (
        ("ANTHROPIC_SMALL_FAST_MODEL", "small_fast_model"),
        ("ANTHROPIC_DEFAULT_SONNET_MODEL", "default_sonnet_model"),
        ("ANTHROPIC_DEFAULT_OPUS_MODEL", "default_opus_model"),
        ("ANTHROPIC_DEFAULT_HAIKU_MODEL", "default_haiku_model"),
    ):
        if isinstance(env.get(variable), str) and env[variable]:
            options[option] = env[variable]
    notes = []
    if row.meta.get("apiFormat") in PROXY_FORMATS:
        notes.append(
            f"{name}: CC Switch reaches this provider only through its local converting proxy "
            f"(it speaks {row.meta['apiFormat']}, Claude Code speaks Anthropic Messages). Use the "
            "provider's Anthropic-compatible base URL if it has one (`judgeaudit profile edit "
            f"{name} --option anthropic_base_url=...`), or keep a converting proxy running; "
            f"`judgeaudit profile test {name}` tells whether it answers /v1/messages"
        )
    data = {
        "name": name,
        "app": "claude",
        "base_url": base,
        "model": env.get("ANTHROPIC_MODEL") or None,
        "options": options,
    }
    return data, key if isinstance(key, str) and key else None, notes


def _codex(row: Row, name: str) -> tuple[dict[str, Any], str | None, list[str]]:
    raw = row.config.get("config") or ""
    try:
        toml = tomllib.loads(raw) if isinstance(raw, str) else dict(raw)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"its config.toml text does not parse ({exc})") from None
    provider = toml.get("model_provider")
    tables: dict[str, Any] = toml.get("model_providers") or {}
    table: dict[str, Any] = tables.get(str(provider), {}) if isinstance(tables, dict) else {}
    table = table if isinstance(table, dict) else {}
    if row.meta.get("providerType") in MANAGED_AUTH:
        raise ProfileError(
            f"signs in through CC Switch ({row.meta['providerType']}); no key to import"
        )
    base = table.get("base_url")
    if not base:
        raise ProfileError("no model_providers.<id>.base_url (the built-in OpenAI login?)")
    auth: dict[str, Any] = row.config["auth"] if isinstance(row.config.get("auth"), dict) else {}
    key = auth.get("OPENAI_API_KEY") or table.get("experimental_bearer_token")
    data: dict[str, Any] = {
        "name": name,
        "app": "codex",
        "base_url": base,
        "model": toml.get("model") if isinstance(toml.get("model"), str) else None,
    }
    if not key and isinstance(table.get("env_key"), str):
        data["key_env"] = table["env_key"]
    notes = []
    if table.get("wire_api", "responses") != "responses":
        notes.append(
            f"{name}: wire_api = {table.get('wire_api')!r}; current Codex only speaks the "
            "Responses API, so this provider needs a converting proxy; `judgeaudit profile "
            f"test {name}` tells whether it answers /v1/responses"
        )
    return data, key if isinstance(key, str) and key else None, notes


def import_ccswitch(
    store: ProfileStore, db_path: Path | None = None, config_json: Path | None = None
) -> ImportReport:
    home = Path.home() / ".cc-switch"
    db_path = db_path or home / "cc-switch.db"
    config_json = config_json or home / "config.json"
    if db_path.is_file():
        rows = read_db(db_path)
    elif config_json.is_file():
        rows = read_config_json(config_json)
    else:
        raise ProfileError(f"no CC Switch data at {db_path} or {config_json}; pass --db PATH")
    report = ImportReport()
    names = profile_names(rows)
    for row in rows:
        name = names[(row.app, row.id)]
        label = row.name or row.id
        if row.app not in SUPPORTED:
            report.skipped.append(f"{name} ({label}): app {row.app!r} is not claude or codex")
            continue
        hide = secret_values(row.config) | secret_values(row.meta)
        try:
            data, key, notes = (_claude if row.app == "claude" else _codex)(row, name)
        except ProfileError as exc:
            report.skipped.append(f"{name} ({label}): {exc}")
            continue
        if row.name and row.name != name:
            data["description"] = f"CC Switch: {row.name}"
        if store_profile(
            store, report, data, key, f"CC Switch provider {label!r}", hide | {key or ""}
        ):
            report.labels[name] = label
            report.flagged += notes
        if row.current:
            report.current[row.app] = name
    return report

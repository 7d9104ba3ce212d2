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

from judgeaudit import safeio
from judgeaudit.profiles import codexextra, importtx
from judgeaudit.profiles.importers import Batch, ImportReport, slug, store_profile
from judgeaudit.profiles.livefile import read_live
from judgeaudit.profiles.model import ProfileError
from judgeaudit.profiles.paths import claude_settings, codex_home
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.redact import looks_like_key, secret_values

SUPPORTED = ("claude", "codex")
PROXY_FORMATS = ("openai_chat", "openai_responses")
MANAGED_AUTH = ("github_copilot", "codex_oauth")
#: The env variables of a CC Switch Claude provider that a profile carries (URL, key, models).
CLAUDE_CARRIED = frozenset(
    {
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_MODEL",
        "ANTHROPIC_SMALL_FAST_MODEL",
        "ANTHROPIC_DEFAULT_SONNET_MODEL",
        "ANTHROPIC_DEFAULT_OPUS_MODEL",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    }
)


@dataclass
class Row:
    id: str
    app: str
    name: str
    config: dict[str, Any]
    meta: dict[str, Any]
    current: bool
    problem: str | None = None  # why the row cannot be read (invalid JSON), never its text


def _json(value: Any, column: str = "") -> tuple[dict[str, Any], str | None]:
    """The column's JSON object, and what is wrong with it (never quoting it: it holds keys)."""
    if isinstance(value, dict):
        return value, None
    try:
        data = safeio.parse_json(value) if isinstance(value, str) and value.strip() else {}
    except safeio.TooDeep:
        return {}, f"{column} is nested too deeply; fix it in CC Switch"
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        return {}, f"{column} is not valid JSON ({exc.msg} at {where}); fix it in CC Switch"
    if not isinstance(data, dict):
        return {}, f"{column} is not a JSON object; fix it in CC Switch"
    return data, None


def _row(ident: Any, app: Any, name: Any, config: Any, meta: Any, current: Any) -> Row:
    config_data, config_problem = _json(config, "settings_config")
    meta_data, meta_problem = _json(meta, "meta")
    return Row(
        str(ident),
        str(app),
        str(name or ""),
        config_data,
        meta_data,
        bool(current),
        config_problem or meta_problem,
    )


def read_db(db_path: Path) -> list[Row]:
    safeio.check_regular(db_path, "CC Switch database", ProfileError)
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
    return [_row(*row) for row in rows]


def read_config_json(path: Path) -> list[Row]:
    try:
        data = safeio.parse_json(safeio.read_bytes(path, "CC Switch config", ProfileError).decode())
    except safeio.TooDeep:
        raise ProfileError(safeio.too_deep(str(path), "CC Switch config")) from None
    except UnicodeDecodeError as exc:
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
                _row(
                    provider.get("id", ident),
                    app,
                    provider.get("name", ""),
                    config,
                    provider.get("meta"),
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
    fmt = row.meta.get("apiFormat")
    options: dict[str, Any] = {}
    if fmt == "openai_chat":
        # CC Switch's proxy sends base + /v1/chat/completions: our bridge does the same
        # conversion, with the OpenAI-compatible base as the profile's base_url.
        base = str(base).rstrip("/")
        base = base if base.endswith("/v1") else base + "/v1"
        options["bridge"] = "chat"
    else:
        options["anthropic_base_url"] = str(base).rstrip("/")
    for variable, option in (
        ("ANTHROPIC_SMALL_FAST_MODEL", "small_fast_model"),
        ("ANTHROPIC_DEFAULT_SONNET_MODEL", "default_sonnet_model"),
        ("ANTHROPIC_DEFAULT_OPUS_MODEL", "default_opus_model"),
        ("ANTHROPIC_DEFAULT_HAIKU_MODEL", "default_haiku_model"),
    ):
        if isinstance(env.get(variable), str) and env[variable]:
            options[option] = env[variable]
    notes = []
    left = sorted(k for k in env if k not in CLAUDE_CARRIED)
    if left:
        notes.append(
            f"{name}: not imported from its env: {', '.join(left)} (judgeaudit does not carry "
            "per-provider Claude Code settings; put the ones you want in the env of "
            "~/.claude/settings.json yourself)"
        )
    if fmt == "openai_chat":
        notes.append(_bridge_note(name, "claude", "OpenAI chat completions"))
    elif fmt in PROXY_FORMATS:
        notes.append(
            f"{name}: CC Switch reaches this provider only through its local converting proxy "
            f"(it speaks {fmt}, Claude Code speaks Anthropic Messages). If the gateway also "
            "serves chat completions, judgeaudit's bridge converts them: `judgeaudit profile "
            f"edit {name} --option bridge=chat --base-url <its OpenAI base, ending in /v1>`; "
            f"`judgeaudit profile test {name}` tells what it answers"
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
        toml = safeio.parse_toml(raw) if isinstance(raw, str) else dict(raw)
    except safeio.TooDeep:
        raise ProfileError("its config.toml text is nested too deeply") from None
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
    options: dict[str, Any] = {}
    root, root_left = codexextra.split_root(toml)
    extra, extra_left = codexextra.split_provider(table)
    if root:
        options["config"] = root
    if extra:
        options["provider"] = extra
    left = [*root_left, *(f"model_providers.{provider}.{k}" for k in extra_left)]
    if left:
        notes.append(
            f"{name}: not imported from its config.toml: {', '.join(left)} (tables at the top "
            "level stay in your own config.toml; requires_openai_auth and keys: judgeaudit "
            "supplies the key)"
        )
    wire_api = table.get("wire_api", "responses")
    fmt = row.meta.get("apiFormat")
    if wire_api == "chat" or fmt == "openai_chat":
        # CC Switch stores chat-only vendors (its Kimi preset...) with wire_api = "responses"
        # and apiFormat = "openai_chat": its proxy converts, as our bridge does.
        options["bridge"] = "chat"
        speaks = 'wire_api = "chat"' if wire_api == "chat" else "OpenAI chat completions only"
        notes.append(_bridge_note(name, "codex", speaks))
    elif wire_api != "responses":
        notes.append(
            f"{name}: wire_api = {wire_api!r}; current Codex only speaks the Responses API; "
            f"`judgeaudit profile test {name}` tells whether it answers /v1/responses"
        )
    if options:
        data["options"] = options
    return data, key if isinstance(key, str) and key else None, notes


def _bridge_note(name: str, app: str, speaks: str) -> str:
    tool = "Claude Code" if app == "claude" else "Codex"
    return (
        f"{name}: imported with bridge = chat: the provider speaks {speaks}, which {tool} does "
        f"not, and judgeaudit's bridge converts it; `judgeaudit exec {name} -- {app} ...` "
        f"starts one for that command, and after `judgeaudit profile use {name}` keep "
        f"`judgeaudit bridge {name}` running"
    )


def import_ccswitch(
    store: ProfileStore, db_path: Path | None = None, config_json: Path | None = None
) -> ImportReport:
    home = Path.home() / ".cc-switch"
    if db_path is not None and not db_path.is_file():  # asked for: never fall back silently
        why = "is not a regular file" if db_path.exists() else "no such file"
        raise ProfileError(f"{db_path}: {why} (--db); nothing was imported")
    db_path = db_path or home / "cc-switch.db"
    config_json = config_json or home / "config.json"
    if db_path.is_file():
        rows = read_db(db_path)
    elif config_json.is_file():
        rows = read_config_json(config_json)
    else:
        raise ProfileError(f"no CC Switch data at {db_path} or {config_json}; pass --db PATH")
    report = ImportReport()
    rows = _distinct(rows, report)
    report.plaintext = plaintext_copies(db_path if db_path.is_file() else config_json, rows)
    names = profile_names(rows)
    existing = {p.stem for p in store.user_dir.glob("*.toml")} if store.user_dir.is_dir() else set()
    existing |= {p.stem for p in store.presets.glob("*.toml")} if store.presets.is_dir() else set()
    importtx.recover(store)
    batch = Batch(existing=set(existing))
    importtx.begin(store, names.values(), existing)
    for row in rows:
        name = names[(row.app, row.id)]
        label = row.name or row.id
        if _import_row(store, report, row, name, label, batch) or name in existing:
            if row.current:
                report.current[row.app] = name
        elif row.current:
            report.current_skipped[row.app] = label
    importtx.write_keys(batch.keys)
    importtx.commit(store)
    return report


def _distinct(rows: list[Row], report: ImportReport) -> list[Row]:
    """Rows with a provider name that looks like a key get their id shown instead (the name
    is never printed or stored); a second row with an id already seen is skipped."""
    seen: set[tuple[str, str]] = set()
    out: list[Row] = []
    for row in rows:
        if looks_like_key(row.name):
            row.name = ""
        if looks_like_key(row.id):
            row.id = f"row-{len(out) + 1}"
        if (row.app, row.id) in seen:
            report.skipped.append(
                f"{row.name or row.id}: a second {row.app} provider with id {row.id!r}; only the "
                "first was imported (fix the duplicate in CC Switch)"
            )
            continue
        seen.add((row.app, row.id))
        out.append(row)
    return out


def _import_row(
    store: ProfileStore, report: ImportReport, row: Row, name: str, label: str, batch: Batch
) -> bool:
    """Import one row as profile ``name``; False (with a skipped line) when it cannot be."""
    if row.app not in SUPPORTED:
        report.skipped.append(f"{name} ({label}): app {row.app!r} is not claude or codex")
        return False
    if row.problem:
        report.skipped.append(f"{name} ({label}): {row.problem}")
        return False
    hide = secret_values(row.config) | secret_values(row.meta)
    try:
        data, key, notes = (_claude if row.app == "claude" else _codex)(row, name)
    except ProfileError as exc:
        report.skipped.append(f"{name} ({label}): {exc}")
        return False
    if row.name and row.name != name:
        data["description"] = f"CC Switch: {row.name}"
    if not store_profile(
        store, report, data, key, f"CC Switch provider {label!r}", hide | {key or ""}, batch
    ):
        return False
    report.labels[name] = label
    report.flagged += notes
    return True


def _has_key(data: Any) -> bool:
    return any(len(v) >= 8 for v in secret_values(data))


def plaintext_copies(source: Path, rows: list[Row]) -> list[str]:
    """Where keys still sit in plain text after the import (paths and counts, never a key):
    CC Switch's own store and its backups, and the live files it wrote."""
    out = []
    with_keys = [r for r in rows if _has_key(r.config) or _has_key(r.meta)]
    if with_keys:
        out.append(
            f"{source}: CC Switch keeps {len(with_keys)} provider key(s) there in plain text; "
            "delete the providers in CC Switch (or the file) once you no longer need it"
        )
    backups = source.parent / "backups"
    if backups.is_dir() and any(p.is_file() for p in backups.iterdir()):
        out.append(f"{backups}: CC Switch's backups hold the same keys in plain text")
    auth = codex_home() / "auth.json"
    data, _ = _json(_read(auth))
    if _has_key(data) or any(isinstance(v, str) and v for k, v in data.items() if "KEY" in k):
        out.append(
            f"{auth}: holds OPENAI_API_KEY in plain text (CC Switch writes it there; Codex only "
            "reads it for its own login): remove it with `codex logout` or delete the file"
        )
    toml_path = codex_home() / "config.toml"
    try:
        toml = tomllib.loads(_read(toml_path))
    except tomllib.TOMLDecodeError:
        toml = {}
    tables = toml.get("model_providers")
    if isinstance(tables, dict) and any(
        isinstance(t, dict) and t.get("experimental_bearer_token") for t in tables.values()
    ):
        out.append(f"{toml_path}: an experimental_bearer_token holds a key in plain text")
    settings = claude_settings()
    data, _ = _json(_read(settings))
    env = data.get("env")
    if isinstance(env, dict) and any(
        env.get(v) for v in ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY")
    ):
        out.append(
            f"{settings}: env holds a key in plain text (a `judgeaudit profile use` of a "
            "Claude profile moves it to the keyring)"
        )
    return out


def _read(path: Path) -> str:
    try:
        raw = read_live(path)
    except ProfileError:
        return ""
    return raw.decode("utf-8", "replace").removeprefix("\ufeff") if raw else ""

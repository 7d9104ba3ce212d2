"""Reading CC Switch's providers (its SQLite table or the older config.json) into rows, and
finding where it leaves keys in plain text. Never quotes a column's text: it holds keys.
"""

from __future__ import annotations

import json
import sqlite3
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit import safeio
from judgeaudit.profiles.livefile import read_live
from judgeaudit.profiles.model import ProfileError
from judgeaudit.profiles.paths import claude_settings, codex_home
from judgeaudit.redact import secret_values

SUPPORTED = ("claude", "codex")


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
        return (
            {},
            f"{column} is not valid JSON ({safeio.json_problem(exc)} at {where}); fix it in CC Switch",
        )
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
        raise ProfileError(
            f"{path}:{exc.lineno}:{exc.colno}: invalid JSON ({safeio.json_problem(exc)})"
        ) from None
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

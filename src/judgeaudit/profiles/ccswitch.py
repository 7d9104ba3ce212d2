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

import tomllib
from pathlib import Path
from typing import Any

from judgeaudit import safeio
from judgeaudit.profiles import codexextra, importtx
from judgeaudit.profiles.ccswitch_read import (
    SUPPORTED,
    Row,
    plaintext_copies,
    read_config_json,
    read_db,
)
from judgeaudit.profiles.importers import Batch, ImportReport, slug, store_profile
from judgeaudit.profiles.keysource import Imported
from judgeaudit.profiles.model import ProfileError
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.redact import looks_like_key, secret_values

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
#: A provider without a key: skipped as `profile add` refuses one (:mod:`.keysource`), saying
#: where CC Switch keeps the key for each app.
KEYLESS = {
    "claude": Imported(
        "no key in its env (ANTHROPIC_AUTH_TOKEN or ANTHROPIC_API_KEY)",
        "give the provider its key in CC Switch",
    ),
    "codex": Imported(
        "no key (auth.json's OPENAI_API_KEY, experimental_bearer_token or env_key)",
        "give the provider its key in CC Switch",
    ),
}


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
    where = f"CC Switch provider {label!r}"
    if not store_profile(
        store, report, data, key, where, hide | {key or ""}, batch, keyless=KEYLESS[row.app]
    ):
        return False
    report.labels[name] = label
    report.flagged += notes
    return True


# the public names, including those re-exported from the split-out module
__all__ = [
    "CLAUDE_CARRIED",
    "MANAGED_AUTH",
    "PROXY_FORMATS",
    "SUPPORTED",
    "Row",
    "import_ccswitch",
    "plaintext_copies",
    "profile_names",
    "read_config_json",
    "read_db",
]

"""Codex ``config.toml`` (and ``<name>.config.toml`` for ``codex -p``), edited with tomlkit so
comments, formatting and unrelated tables survive."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import ParseError
from tomlkit.items import InlineTable, Table
from tomlkit.toml_document import TOMLDocument

from judgeaudit.profiles.model import BUILTIN_CODEX_PROVIDERS, Profile, ProfileError
from judgeaudit.profiles.targets import FilePlan

#: Codex waits 5 s for an auth command by default; a busy machine can need more than that.
AUTH_TIMEOUT_MS = 15000


def provider_id(profile: Profile) -> str:
    given = profile.option("provider_id")
    ident = str(given) if given else f"judgeaudit-{profile.name}"
    if ident in BUILTIN_CODEX_PROVIDERS:
        raise ProfileError(f"profile {profile.name!r}: {ident!r} is a built-in Codex provider id")
    return ident


def env_key_name(profile: Profile) -> str:
    given = profile.option("env_key") or profile.key_env
    if given:
        return str(given)
    return re.sub(r"[^A-Z0-9]", "_", f"JUDGEAUDIT_{profile.name.upper()}_KEY")


def parse(path: Path, raw: bytes) -> TOMLDocument:
    try:
        return tomlkit.parse(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ProfileError(f"{path}: not UTF-8 text; nothing was changed") from None
    except ParseError as exc:
        raise ProfileError(
            f"{path}:{exc.line}:{exc.col}: invalid TOML ({str(exc).split(' at line')[0]}); fix it or "
            "move it aside, nothing was changed"
        ) from None


def _provider_table(profile: Profile) -> Table:
    table = tomlkit.table()
    table["name"] = f"{profile.name} (judgeaudit)"
    table["base_url"] = profile.base_url
    table["wire_api"] = "responses"
    if profile.option("key_mode", "command") == "command":
        if not profile.key:
            raise ProfileError(
                f"profile {profile.name!r}: key_mode command needs key = <keyring entry>"
            )
        auth: InlineTable = tomlkit.inline_table()
        auth["command"] = sys.executable
        auth["args"] = ["-m", "judgeaudit", "key", "print", profile.key]
        auth["timeout_ms"] = AUTH_TIMEOUT_MS
        table["auth"] = auth
    else:
        table["env_key"] = env_key_name(profile)
    return table


def apply_profile(doc: TOMLDocument, profile: Profile) -> list[str]:
    """Set model, model_provider and [model_providers.<id>]; return warnings."""
    ident = provider_id(profile)
    if profile.model:
        doc["model"] = profile.model
    doc["model_provider"] = ident
    providers = doc.get("model_providers")
    if providers is None:
        providers = tomlkit.table(is_super_table=True)
        doc["model_providers"] = providers
    elif not isinstance(providers, Table | dict):
        raise ProfileError("config.toml: model_providers must be a table; nothing was changed")
    providers[ident] = _provider_table(profile)
    warnings = []
    if "profile" in doc or "profiles" in doc:
        warnings.append(
            "config.toml has a legacy `profile` key or [profiles.*] tables that current "
            "Codex rejects; judgeaudit leaves them, remove them by hand"
        )
    return warnings


def _dump(doc: TOMLDocument) -> bytes:
    return tomlkit.dumps(doc).encode("utf-8")


def plan_main(path: Path, raw: bytes | None, profile: Profile) -> FilePlan:
    doc = parse(path, raw) if raw is not None else tomlkit.document()
    warnings = apply_profile(doc, profile)
    owned = ["model", "model_provider", f"model_providers.{provider_id(profile)}"]
    return FilePlan(path, raw, _dump(doc), owned=owned, warnings=warnings)


def plan_profile_file(path: Path, raw: bytes | None, profile: Profile) -> FilePlan:
    doc = parse(path, raw) if raw is not None else tomlkit.document()
    if raw is None:
        doc.add(
            tomlkit.comment(
                f"judgeaudit profile {profile.name}: use with `codex -p {profile.name}`"
            )
        )
    apply_profile(doc, profile)
    return FilePlan(path, raw, _dump(doc), owned=["model", "model_provider"])


def validate(path: Path, written: bytes, plan_: FilePlan) -> None:
    doc = parse(path, written)
    if written != plan_.after:
        raise ProfileError(f"{path}: read-back differs from what was written")
    provider = doc.get("model_provider")
    providers: Any = doc.get("model_providers", {})
    if provider not in providers or providers[provider].get("wire_api") != "responses":
        raise ProfileError(f"{path}: read-back lacks the provider table it should have")

"""Codex settings a profile carries beyond its endpoint, as CC Switch keeps them per provider.

``options.config``: root keys of ``config.toml`` (``model_reasoning_effort = "high"``,
``model_context_window``...), written by a switch with the same ledger as ``model``: the
user's own value comes back when a profile without it is switched in, or at ``off``.
``options.provider``: extra keys of the ``[model_providers.<id>]`` table (``query_params``,
``http_headers``, ``request_max_retries``...). Keys judgeaudit writes itself, tables at the root
and anything that looks like a key are refused: profile files never hold secrets.
"""

from __future__ import annotations

from typing import Any

from judgeaudit.profiles.names import ProfileError
from judgeaudit.redact import looks_like_key, secret_values

OWNED_ROOT = frozenset({"model", "model_provider", "model_providers", "profile", "profiles"})
#: Provider-table keys the switch writes (or replaces: judgeaudit supplies the key itself).
OWNED_PROVIDER = frozenset(
    {"name", "base_url", "wire_api", "env_key", "auth", "experimental_bearer_token"}
)
#: Provider-table keys that make Codex use its own login instead of the profile's key.
LOGIN_PROVIDER = frozenset({"requires_openai_auth"})
PLAIN = (str, int, float, bool)


def _plain(value: Any, tables: bool) -> bool:
    if isinstance(value, PLAIN):
        return True
    if isinstance(value, list):
        return all(_plain(v, tables) for v in value)
    if isinstance(value, dict) and tables:
        return all(isinstance(k, str) and _plain(v, tables) for k, v in value.items())
    return False


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []


def holds_key(name: str, value: Any) -> bool:
    """Whether ``value`` (under ``name``) looks like it holds a credential."""
    return bool(secret_values({name: value})) or any(looks_like_key(s) for s in _strings(value))


def check(options: dict[str, Any], where: str) -> None:
    """One line naming the option and key that cannot be carried, or nothing."""
    for option, owned, tables in (
        ("config", OWNED_ROOT, False),
        ("provider", OWNED_PROVIDER, True),
    ):
        value = options.get(option)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise ProfileError(f"{where}: options.{option}: must be a table")
        for key, item in value.items():
            label = f"{where}: options.{option}.{key}"
            if key in owned or key in LOGIN_PROVIDER:
                raise ProfileError(f"{label}: judgeaudit writes this key itself; remove it")
            if not _plain(item, tables):
                kind = "a string, number, boolean or array" if not tables else "plain TOML"
                raise ProfileError(f"{label}: must be {kind}")
            if holds_key(key, item):
                raise ProfileError(
                    f"{label}: looks like it holds a key; keys live in the keyring, not in "
                    "profile files"
                )


def split_root(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A provider's config text: the root keys a profile can carry, and the names it cannot."""
    kept: dict[str, Any] = {}
    left: list[str] = []
    for key, value in data.items():
        if key in OWNED_ROOT:
            continue
        if _plain(value, False) and not holds_key(key, value):
            kept[key] = value
        else:
            left.append(key)
    return kept, left


def split_provider(table: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A provider table: the extra keys a profile can carry, and the names it cannot."""
    kept: dict[str, Any] = {}
    left: list[str] = []
    for key, value in table.items():
        if key in OWNED_PROVIDER:
            continue
        if key not in LOGIN_PROVIDER and _plain(value, True) and not holds_key(key, value):
            kept[key] = value
        else:
            left.append(key)
    return kept, left

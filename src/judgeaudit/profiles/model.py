"""A profile: one app pointed at one OpenAI-compatible endpoint, with a keyring entry name."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from judgeaudit.errors import InputError
from judgeaudit.tomlfile import read_toml

APPS = ("claude", "codex", "sdk")
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
ENV_RE = re.compile(r"^[A-Z_][A-Z0-9_]{0,127}$")
BUILTIN_CODEX_PROVIDERS = ("openai", "ollama", "lmstudio", "amazon-bedrock", "oss")
APP_OPTIONS: dict[str, dict[str, tuple[str, ...] | type]] = {
    "claude": {
        "key_mode": ("helper", "inline", "env"),
        "anthropic_base_url": str,
        "small_fast_model": str,
        "default_sonnet_model": str,
        "default_opus_model": str,
        "default_haiku_model": str,
    },
    "codex": {"key_mode": ("command", "env_key"), "provider_id": str, "env_key": str},
    "sdk": {"env_prefix": str},
}


class ProfileError(InputError):
    """A bad profile or a refused action; one line naming the file/field and the fix."""


@dataclass(frozen=True)
class Profile:
    name: str
    app: str
    base_url: str
    model: str | None = None
    key: str | None = None  # keyring entry (service "judgeaudit"); several profiles may share one
    key_env: str | None = None  # explicit environment-variable fallback, never a file
    price_in: float | None = None  # USD per million input tokens
    price_out: float | None = None
    options: dict[str, Any] = field(default_factory=dict)
    source: str = "user"  # user | preset

    def option(self, name: str, default: Any = None) -> Any:
        return self.options.get(name, default)

    def to_toml(self) -> str:
        import tomlkit  # here, not at the top: `key print` (a start-up path) never writes TOML

        doc = tomlkit.document()
        doc.add(tomlkit.comment(f"judgeaudit profile ({self.app}); keys live in the OS keyring"))
        for key in ("name", "app", "base_url", "model", "key", "key_env", "price_in", "price_out"):
            value = getattr(self, key)
            if value is not None:
                doc[key] = value
        if self.options:
            table = tomlkit.table()
            for key, value in self.options.items():
                table[key] = value
            doc["options"] = table
        return tomlkit.dumps(doc)


def check_name(name: str, what: str = "profile name") -> str:
    if not NAME_RE.match(name):
        raise ProfileError(
            f"{what} {name!r}: use 1-63 lowercase letters, digits, '-' or '_' (no paths, no dots)"
        )
    return name


def check_base_url(url: str, where: str = "base_url") -> str:
    if not url.startswith(("http://", "https://")):
        raise ProfileError(f"{where}: {url!r} must start with http:// or https://")
    if "?" in url or "#" in url:
        raise ProfileError(
            f"{where}: {url!r} has a query string or fragment (tracking utm_ parameters copied "
            "from a web page?); use the bare API base URL, e.g. https://taotoken.net/api"
        )
    return url.rstrip("/")


def profile_from_dict(data: dict[str, Any], where: str, source: str = "user") -> Profile:
    allowed = {
        "name",
        "app",
        "base_url",
        "model",
        "key",
        "key_env",
        "price_in",
        "price_out",
        "options",
    }
    for key in data:
        if key not in allowed:
            raise ProfileError(
                f"{where}: {key}: unknown field (allowed: {', '.join(sorted(allowed))})"
            )
    for key in ("name", "app", "base_url"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ProfileError(f"{where}: {key}: missing or not a string")
    app = data["app"]
    if app not in APPS:
        raise ProfileError(f"{where}: app: {app!r} is not one of {', '.join(APPS)}")
    name = check_name(data["name"])
    if data.get("key") is not None:
        check_name(str(data["key"]), "key name")
    key_env = data.get("key_env")
    if key_env is not None and not ENV_RE.match(str(key_env)):
        raise ProfileError(f"{where}: key_env: {key_env!r} is not an environment variable name")
    prices = {}
    for key in ("price_in", "price_out"):
        value = data.get(key)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or value < 0
        ):
            raise ProfileError(
                f"{where}: {key}: must be a non-negative number (USD per million tokens)"
            )
        prices[key] = None if value is None else float(value)
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise ProfileError(f"{where}: options: must be a table")
    options = {str(k): (v.unwrap() if hasattr(v, "unwrap") else v) for k, v in options.items()}
    for key, value in options.items():
        spec = APP_OPTIONS[app].get(key)
        if spec is None:
            known = ", ".join(APP_OPTIONS[app]) or "none"
            raise ProfileError(
                f"{where}: options.{key}: unknown option for app {app} (known: {known})"
            )
        if isinstance(spec, tuple) and value not in spec:
            raise ProfileError(f"{where}: options.{key}: {value!r} is not one of {', '.join(spec)}")
        if spec is str and not isinstance(value, str):
            raise ProfileError(f"{where}: options.{key}: must be a string")
    if app == "codex":
        provider = options.get("provider_id")
        if provider in BUILTIN_CODEX_PROVIDERS:
            raise ProfileError(
                f"{where}: options.provider_id: {provider!r} is a built-in Codex provider id; "
                "pick another name"
            )
        if "env_key" in options and not ENV_RE.match(options["env_key"]):
            raise ProfileError(f"{where}: options.env_key: not an environment variable name")
    if "anthropic_base_url" in options:
        check_base_url(options["anthropic_base_url"], f"{where}: options.anthropic_base_url")
    return Profile(
        name=name,
        app=app,
        base_url=check_base_url(data["base_url"], f"{where}: base_url"),
        model=data.get("model") or None,
        key=data.get("key"),
        key_env=key_env,
        price_in=prices["price_in"],
        price_out=prices["price_out"],
        options=options,
        source=source,
    )


def load_profile(path: Path, source: str = "user") -> Profile:
    profile = profile_from_dict(read_toml(path, "profile", ProfileError), str(path), source)
    if profile.name != path.stem:
        raise ProfileError(f"{path}: name: {profile.name!r} must match the file name {path.stem!r}")
    return profile


def with_changes(profile: Profile, changes: dict[str, Any]) -> Profile:
    return replace(profile, **changes)

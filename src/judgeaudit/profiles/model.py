"""A profile: one app pointed at one OpenAI-compatible endpoint, with a keyring entry name."""

from __future__ import annotations

import math
import os
import re
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from judgeaudit import credentials
from judgeaudit.agentnames import id_text_problem
from judgeaudit.profiles import bridgeopt, codexextra
from judgeaudit.profiles.filekind import kind_of
from judgeaudit.profiles.names import NAME_RE as NAME_RE
from judgeaudit.profiles.names import ProfileError as ProfileError
from judgeaudit.profiles.names import check_name as check_name
from judgeaudit.tomlfile import read_toml
from judgeaudit.validate import json_type

#: The apps a profile can be for (each has a switch target: ``targets/registry.py``).
App = Literal["claude", "codex", "sdk"]
APPS: tuple[App, ...] = ("claude", "codex", "sdk")
ENV_RE = re.compile(r"^[A-Z_][A-Z0-9_]{0,127}$")
ENV_PREFIX_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
PROVIDER_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,63}$")
BUILTIN_CODEX_PROVIDERS = ("openai", "ollama", "lmstudio", "amazon-bedrock", "oss")
#: ``bridge = "chat"``: the tool goes through ``judgeaudit bridge`` (see profiles.bridgeopt).
BRIDGE_OPTIONS: dict[str, tuple[str, ...] | type] = {"bridge": bridgeopt.MODES, "bridge_port": int}
APP_OPTIONS: dict[str, dict[str, tuple[str, ...] | type]] = {
    "claude": {
        "key_mode": ("helper", "inline", "env"),
        "anthropic_base_url": str,
        "small_fast_model": str,
        "default_sonnet_model": str,
        "default_opus_model": str,
        "default_haiku_model": str,
        **BRIDGE_OPTIONS,
    },
    "codex": {
        "key_mode": ("command", "env_key"),
        "provider_id": str,
        "env_key": str,
        "config": dict,  # more root keys of config.toml (profiles.codexextra)
        "provider": dict,  # more keys of the provider table
        **BRIDGE_OPTIONS,
    },
    "sdk": {"env_prefix": str},
}


#: The variable prefix of the Anthropic SDKs and Claude Code (``ANTHROPIC_BASE_URL``), whose
#: base URL is the gateway's without ``/v1`` (:meth:`Profile.family_base`).
ANTHROPIC_FAMILY = "ANTHROPIC"


#: The scalar fields a profile file holds, in file order (``options`` is a table after them);
#: ``profile edit`` carries every one it is not told to change.
STORED_FIELDS = (
    "name",
    "app",
    "description",
    "base_url",
    "model",
    "key",
    "key_env",
    "price_in",
    "price_out",
    "rpm",
    "tpm",
)


@dataclass(frozen=True)
class Profile:
    name: str
    app: str
    base_url: str
    model: str | None = None
    key: str | None = None  # keyring entry (service "judgeaudit"); several profiles may share one
    key_env: str | None = None  # explicit environment-variable fallback, never a file
    price_in: float | None = None  # USD per million input tokens
    rpm: float | None = None  # requests per minute the gateway allows (audits pace themselves)
    tpm: float | None = None  # tokens per minute
    price_out: float | None = None
    options: dict[str, Any] = field(default_factory=dict)
    source: str = "user"  # user | preset
    description: str | None = None  # a human name, e.g. the CC Switch provider name

    def option(self, name: str, default: Any = None) -> Any:
        return self.options.get(name, default)

    def anthropic_gateway(self) -> str:
        """The gateway's Anthropic Messages URL: ``options.anthropic_base_url``, else the base
        URL without its ``/v1`` (the Anthropic SDKs add ``/v1/messages``). One rule for the
        switch, exec's layer and the SDK variables."""
        return str(self.option("anthropic_base_url") or self.base_url.removesuffix("/v1"))

    def family_base(self, prefix: str) -> str:
        """The base URL the variables ``PREFIX_*`` get: the Anthropic family
        (:data:`ANTHROPIC_FAMILY`: the SDKs add ``/v1/messages``) :meth:`anthropic_gateway`,
        any other the OpenAI-style :meth:`openai_base`. One rule for a Claude profile's
        ``ANTHROPIC_BASE_URL`` and an sdk profile's ``env_prefix = "ANTHROPIC"``."""
        if prefix.upper() == ANTHROPIC_FAMILY:
            return self.anthropic_gateway()
        return self.openai_base()

    def openai_base(self) -> str:
        """The gateway's OpenAI-style base (``.../v1``, where the SDKs add ``/chat/completions``):
        a Claude profile's base URL is the Anthropic one, which Claude Code extends itself, so
        ``/v1`` is added to it; another app's base URL is that already."""
        if self.app != "claude" or self.base_url.rstrip("/").endswith("/v1"):
            return self.base_url
        return self.base_url.rstrip("/") + "/v1"

    @property
    def shown_url(self) -> str:
        """The URL the app is given (Claude Code: the Anthropic gateway), for ``list`` and the
        TUI: ``deepseek-claude`` shows ``…/anthropic``, not the chat ``base_url``."""
        return self.anthropic_gateway() if self.app == "claude" else self.base_url

    def to_toml(self) -> str:
        import tomlkit  # here, not at the top: `key print` (a start-up path) never writes TOML

        doc = tomlkit.document()
        doc.add(tomlkit.comment(f"judgeaudit profile ({self.app}); keys live in the OS keyring"))
        for key in STORED_FIELDS:
            value = getattr(self, key)
            if value is not None:
                doc[key] = value
        if self.options:
            table = tomlkit.table()
            for key, value in self.options.items():
                table[key] = value
            doc["options"] = table
        return tomlkit.dumps(doc)


def base_url_hint(app: str | None, options: dict[str, Any] | None = None) -> str:
    """What a base URL looks like for each app: Claude Code appends /v1/messages itself, but a
    bridged Claude profile's URL is the gateway's OpenAI-compatible base, as every other's."""
    if app == "claude" and not bridgeopt.bridged(app, options or {}):
        return "e.g. https://taotoken.net/api (Claude Code appends /v1/messages itself)"
    return "e.g. https://taotoken.net/api/v1 (the OpenAI-compatible base, ending in /v1)"


def check_base_url(
    url: str,
    where: str = "base_url",
    app: str | None = None,
    options: dict[str, Any] | None = None,
) -> str:
    """The bare API base, or one line saying what is wrong with it. The URL itself is never
    echoed: a query string or user part may carry a key (``?api_key=sk-...``)."""
    hint = base_url_hint(app, options)
    if not isinstance(url, str):
        raise ProfileError(f"{where}: must be a string ({hint})")
    url = url.strip()  # a space copied along with the URL
    if not url.startswith(("http://", "https://")):
        raise ProfileError(f"{where}: must start with http:// or https:// ({hint})")
    if any(c.isspace() for c in url):
        raise ProfileError(f"{where}: the URL has white space inside it; remove it ({hint})")
    if (problem := id_text_problem(url, "the URL")) is not None:  # a bidi control hid its host
        raise ProfileError(f"{where}: the URL {problem}")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ProfileError(f"{where}: not a valid URL (bad host or port; {hint})") from None
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ProfileError(
            f"{where}: the URL carries credentials (user:password@); keep the key in the "
            "keyring (`judgeaudit key set NAME`) and use the bare base URL"
        )
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise ProfileError(
            f"{where}: the URL has a query string or fragment (tracking utm_ parameters copied "
            f"from a web page?); use the bare API base URL, {hint}"
        )
    if not parts.hostname or port == 0:
        raise ProfileError(f"{where}: the URL has no valid host ({hint})")
    return url.rstrip("/")


def _check_model(value: Any, where: str) -> str | None:
    """A model id: one line of printable text, or absent (never an empty string)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ProfileError(f"{where}: model: must be a string (a model id)")
    if not value:
        raise ProfileError(
            f"{where}: model: empty; give a model id, or leave the model out (no `model` line "
            "in a file, no --model on the command line)"
        )
    credentials.check_name(value, f"{where}: model", ProfileError)
    if value != value.strip() or any(not c.isprintable() for c in value):
        raise ProfileError(
            f"{where}: model: a model id is one line without leading or trailing spaces or "
            "control characters"
        )
    return value


#: what to give for each required field, said when it is missing, empty or not text
REQUIRED = {
    "name": 'a name of letters, digits, "-" and "_"',
    "app": f"one of {', '.join(APPS)} (the tool the profile switches)",
    "base_url": "the API's base URL",
}


def _check_required(value: Any, key: str, where: str) -> None:
    """A required field: one line naming the file (or form) and the field, what is wrong and
    what to write instead (in a profile file, the very line)."""
    example = {"name": Path(where).stem, "app": "sdk", "base_url": "https://api.example.com/v1"}
    line = f'{key} = "{example[key]}"'
    fix = f"give {REQUIRED[key]}"
    if where.endswith(".toml"):
        fix = f"add a line {line} ({REQUIRED[key]})"
    if value is None:
        raise ProfileError(f"{where}: {key}: missing; {fix}")
    if not isinstance(value, str):
        raise ProfileError(
            f"{where}: {key}: {json_type(value)} ({value!r}), not text; give {REQUIRED[key]} "
            f"in quotes, e.g. {line}"
        )
    if not value.strip():
        raise ProfileError(f"{where}: {key}: empty; give {REQUIRED[key]}")


def check_env_name(value: str, where: str) -> None:
    """Refuse what is no variable name of :data:`ENV_RE`'s; a lower-case one (``openai_api_key``)
    is told its upper-case form, which it is meant to be."""
    if ENV_RE.match(value):
        return
    if ENV_RE.match(value.upper()):
        raise ProfileError(
            f"{where}: {value!r}: a variable's name is upper case here; use {value.upper()!r}"
        )
    raise ProfileError(
        f"{where}: {value!r} is not an environment variable name (upper-case letters, digits "
        "and '_', not starting with a digit)"
    )


def profile_from_dict(data: dict[str, Any], where: str, source: str = "user") -> Profile:
    allowed = {*STORED_FIELDS, "options"}
    for key in data:
        if key not in allowed:
            raise ProfileError(
                f"{where}: {key}: unknown field (allowed: {', '.join(sorted(allowed))})"
            )
    for key in ("name", "app", "base_url"):
        _check_required(data.get(key), key, where)
    app = data["app"]
    if app not in APPS:
        raise ProfileError(f"{where}: app: {app!r} is not one of {', '.join(APPS)}")
    name = check_name(data["name"])
    for key, what in (("key", "a keyring entry name"), ("key_env", "a variable's name")):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise ProfileError(
                f"{where}: {key}: {json_type(data[key])}, not text; give {what} in quotes"
                + (', e.g. "TAOTOKEN_API_KEY"' if key == "key_env" else "")
            )
    if data.get("key") is not None:
        check_name(data["key"], f"{where}: key")
    key_env = data.get("key_env")
    if key_env is not None:
        credentials.check_name(key_env, f"{where}: key_env", ProfileError)
    if key_env is not None:
        check_env_name(key_env, f"{where}: key_env")
    if key_env is not None:
        credentials.check_key_variable(key_env, f"{where}: key_env", ProfileError)
    prices = {}
    for key in ("price_in", "price_out"):
        value = data.get(key)
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
        ):
            raise ProfileError(
                f"{where}: {key}: must be a finite, non-negative number (USD per million tokens)"
            )
        prices[key] = None if value is None else float(value)
    for key, high in (("rpm", 1e9), ("tpm", 1e12)):
        value = data.get(key)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or not 1 <= value <= high
        ):
            what = "requests" if key == "rpm" else "tokens"
            raise ProfileError(f"{where}: {key}: must be {what} per minute, from 1 to {high:g}")
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
    prefix = options.get("env_prefix")
    if prefix is not None and not ENV_PREFIX_RE.match(str(prefix)):
        raise ProfileError(
            f"{where}: options.env_prefix: use letters, digits and '_', starting with a letter "
            "(e.g. TAOTOKEN exports TAOTOKEN_API_KEY)"
        )
    if prefix is not None and (problem := credentials.env_prefix_problem(str(prefix))):
        raise ProfileError(f"{where}: options.env_prefix: {problem}")
    if app == "codex":
        provider = options.get("provider_id")
        if provider in BUILTIN_CODEX_PROVIDERS:
            raise ProfileError(
                f"{where}: options.provider_id: {provider!r} is a built-in Codex provider id; "
                "pick another name"
            )
        for option in ("provider_id", "env_key"):  # written to config.toml, shown, echoed
            if isinstance(options.get(option), str):
                credentials.check_name(options[option], f"{where}: options.{option}", ProfileError)
        if provider is not None and not PROVIDER_ID_RE.match(provider):
            raise ProfileError(
                f"{where}: options.provider_id: use letters, digits, '-' or '_' (a TOML table name)"
            )
        if "env_key" in options:
            check_env_name(options["env_key"], f"{where}: options.env_key")
        if isinstance(options.get("env_key"), str):
            credentials.check_key_variable(
                options["env_key"], f"{where}: options.env_key", ProfileError, written=True
            )
        codexextra.check(options, where)
    if problem := bridgeopt.check(options, app, data["base_url"], where):
        raise ProfileError(problem)
    if "anthropic_base_url" in options:
        options["anthropic_base_url"] = check_base_url(
            options["anthropic_base_url"], f"{where}: options.anthropic_base_url", "claude"
        )
    for option, value in options.items():
        if isinstance(value, str) and option.endswith("model"):
            credentials.check_name(value, f"{where}: options.{option}", ProfileError)
    description = data.get("description")
    if description is not None and (not isinstance(description, str) or "\n" in description):
        raise ProfileError(f"{where}: description: must be a one-line string")
    model = _check_model(data.get("model"), where)
    return Profile(
        name=name,
        app=app,
        base_url=check_base_url(data["base_url"], f"{where}: base_url", app, options),
        model=model,
        key=data.get("key"),
        key_env=key_env,
        price_in=prices["price_in"],
        price_out=prices["price_out"],
        rpm=prices["rpm"],
        tpm=prices["tpm"],
        options=options,
        source=source,
        description=description or None,
    )


def read_profile_table(path: Path) -> dict[str, Any]:
    """A profile file's TOML table, unchecked (a regular UTF-8 TOML file, or the one line)."""
    try:  # a FIFO named *.toml would block the read forever
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise ProfileError(f"{path}: is {kind_of(mode)}, not a profile file; remove it")
        return read_toml(path, "profile", ProfileError)
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise ProfileError(f"{path}: not UTF-8 text; save it as UTF-8") from None


def profile_from_table(data: dict[str, Any], path: Path, source: str = "user") -> Profile:
    """The profile file ``path``'s table holds, checked (its name is its file's)."""
    profile = profile_from_dict(data, str(path), source)
    if profile.name != path.stem:
        raise ProfileError(f"{path}: name: {profile.name!r} must match the file name {path.stem!r}")
    return profile


def load_profile(path: Path, source: str = "user") -> Profile:
    return profile_from_table(read_profile_table(path), path, source)


def with_changes(profile: Profile, changes: dict[str, Any]) -> Profile:
    return replace(profile, **changes)

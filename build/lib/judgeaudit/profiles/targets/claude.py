"""Claude Code ``settings.json``: merge only the keys judgeaudit owns; never write invalid JSON
(Claude Code silently ignores an invalid settings file)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.targets import FilePlan

ENV_FOR_OPTION = {
    "small_fast_model": "ANTHROPIC_SMALL_FAST_MODEL",
    "default_sonnet_model": "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "default_opus_model": "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "default_haiku_model": "ANTHROPIC_DEFAULT_HAIKU_MODEL",
}
OWNABLE = (
    "env.ANTHROPIC_BASE_URL",
    "env.ANTHROPIC_MODEL",
    "env.ANTHROPIC_AUTH_TOKEN",
    *(f"env.{v}" for v in ENV_FOR_OPTION.values()),
    "apiKeyHelper",
)


def parse(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except UnicodeDecodeError:
        raise ProfileError(f"{path}: not UTF-8 text; nothing was changed") from None
    except json.JSONDecodeError as exc:
        raise ProfileError(
            f"{path}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg}); fix it or move it aside, "
            "nothing was changed"
        ) from None
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: the top level must be a JSON object; nothing was changed")
    if "env" in data and not isinstance(data["env"], dict):
        raise ProfileError(f"{path}: 'env' must be an object; nothing was changed")
    return data


def helper_command(key_name: str) -> str:
    """The apiKeyHelper command: this very interpreter, so it works from any shell and venv."""
    return f"{shlex.quote(sys.executable)} -m judgeaudit key print {shlex.quote(key_name)}"


def anthropic_base(profile: Profile) -> str:
    explicit = profile.option("anthropic_base_url")
    if explicit:
        return str(explicit)
    return profile.base_url.removesuffix("/v1")


def desired(profile: Profile, inline_key: str | None) -> dict[str, str]:
    """The owned keys this profile sets, as dotted paths."""
    want = {"env.ANTHROPIC_BASE_URL": anthropic_base(profile)}
    if profile.model:
        want["env.ANTHROPIC_MODEL"] = profile.model
    for option, variable in ENV_FOR_OPTION.items():
        if profile.option(option):
            want[f"env.{variable}"] = str(profile.option(option))
    mode = profile.option("key_mode", "helper")
    if mode == "helper":
        if not profile.key:
            raise ProfileError(
                f"profile {profile.name!r}: key_mode helper needs key = <keyring entry>"
            )
        want["apiKeyHelper"] = helper_command(profile.key)
    elif mode == "inline":
        if not inline_key:
            raise ProfileError(f"profile {profile.name!r}: key_mode inline needs a stored key")
        want["env.ANTHROPIC_AUTH_TOKEN"] = inline_key
    return want


def plan(
    path: Path,
    raw: bytes | None,
    profile: Profile,
    previously_owned: list[str],
    inline_key: str | None = None,
) -> FilePlan:
    data = parse(path, raw) if raw is not None else {}
    want = desired(profile, inline_key)
    env = dict(data.get("env", {}))
    result: dict[str, Any] = dict(data)
    # Drop keys we wrote for an earlier profile that this one does not set; never anyone else's.
    for dotted in previously_owned:
        if dotted in want or dotted not in OWNABLE:
            continue
        if dotted.startswith("env."):
            env.pop(dotted[4:], None)
        else:
            result.pop(dotted, None)
    for dotted, value in want.items():
        if dotted.startswith("env."):
            env[dotted[4:]] = value
        else:
            result[dotted] = value
    if env or "env" in data:
        result["env"] = env
    after = (json.dumps(result, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    warnings = []
    secret = "env.ANTHROPIC_AUTH_TOKEN" in want
    if secret:
        warnings.append(
            f"{path} will hold the API key in plain text (key_mode inline); it is "
            "written with mode 0600. key_mode helper keeps it in the keyring."
        )
    return FilePlan(path, raw, after, secret=secret, owned=sorted(want), warnings=warnings)


def validate(path: Path, written: bytes, plan_: FilePlan) -> None:
    data = parse(path, written)
    if written != plan_.after:
        raise ProfileError(f"{path}: read-back differs from what was written")
    if "env" in data and not isinstance(data["env"], dict):
        raise ProfileError(f"{path}: read-back has a broken env object")

"""SDK environment: exports for one shell, or the environment of one command."""

from __future__ import annotations

import re

from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.names import SHELLS as SHELLS


def variables(profile: Profile, key: str) -> dict[str, str]:
    """OPENAI_* for any OpenAI SDK, plus the profile's own prefix (e.g. TAOTOKEN_*)."""
    out = {"OPENAI_BASE_URL": profile.base_url, "OPENAI_API_KEY": key}
    if profile.model:
        out["OPENAI_MODEL"] = profile.model
    prefix = profile.option("env_prefix")
    if prefix:
        prefix = str(prefix).upper()
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", prefix):
            raise ProfileError(
                f"profile {profile.name!r}: options.env_prefix {prefix!r} is not a variable prefix"
            )
        out[f"{prefix}_BASE_URL"] = profile.base_url
        out[f"{prefix}_API_KEY"] = key
        if profile.model:
            out[f"{prefix}_MODEL"] = profile.model
    if profile.app == "claude":
        out["ANTHROPIC_BASE_URL"] = profile.option(
            "anthropic_base_url"
        ) or profile.base_url.removesuffix("/v1")
        out["ANTHROPIC_AUTH_TOKEN"] = key
        if profile.model:
            out["ANTHROPIC_MODEL"] = profile.model
    return out


def _quote(shell: str, value: str) -> str:
    if shell == "powershell":
        return "'" + value.replace("'", "''") + "'"
    return "'" + value.replace("'", "'\\''") + "'"


def exports(variables_: dict[str, str], shell: str) -> str:
    if shell not in SHELLS:
        raise ProfileError(f"--shell {shell!r}: use one of {', '.join(SHELLS)}")
    lines = []
    for name, value in variables_.items():
        if shell == "fish":
            lines.append(f"set -gx {name} {_quote(shell, value)}")
        elif shell == "powershell":
            lines.append(f"$env:{name} = {_quote(shell, value)}")
        else:
            lines.append(f"export {name}={_quote(shell, value)}")
    return "\n".join(lines)

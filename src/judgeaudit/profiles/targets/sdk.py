"""SDK environment: exports for one shell, or the environment of one command.

Setting the profile's variables is not enough: a program reads others beside them, and a shell
often holds another provider's. The legacy ``openai`` package (< 1) and LangChain read
``OPENAI_API_BASE`` (unset there, openai < 1 sends the key to api.openai.com), so it is set to
the profile's URL too; the Anthropic SDK prefers a shell's ``ANTHROPIC_API_KEY`` over the
profile's ``ANTHROPIC_AUTH_TOKEN``; organisation and project ids, Azure's endpoint and key, and
Claude Code's cloud switches and model tiers name another account or endpoint. Those are
:func:`cleared`: removed from the command's environment, unset by the shell exports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.names import SHELLS as SHELLS

#: Another OpenAI account's or endpoint's variables, read by the openai SDKs (the organisation
#: and project go to the gateway as headers), legacy openai < 1 and the Azure clients.
OPENAI_OTHERS = (
    "OPENAI_ORG_ID", "OPENAI_ORGANIZATION", "OPENAI_PROJECT_ID", "OPENAI_API_TYPE",
    "OPENAI_API_VERSION", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_AD_TOKEN",
)  # fmt: skip


def cleared(profile: Profile, given: Mapping[str, str]) -> tuple[str, ...]:
    """The variables a command run with ``profile`` must not inherit (module docstring): those
    of :data:`OPENAI_OTHERS` and, for a Claude profile, Claude Code's token, cloud and tier
    variables, each unless ``given`` (the profile's :func:`variables`) sets it."""
    names: tuple[str, ...] = OPENAI_OTHERS
    if profile.app == "claude":
        from judgeaudit.profiles.targets import claude

        names += (*claude.TOKEN_VARS, *claude.ROUTER_VARS, *claude.TIER_VARS)
    return tuple(name for name in names if name not in given)


def variables(profile: Profile, key: str) -> dict[str, str]:
    """OPENAI_* for any OpenAI SDK, plus the profile's own prefix (e.g. TAOTOKEN_*)."""
    out = {
        "OPENAI_BASE_URL": profile.base_url,
        "OPENAI_API_BASE": profile.base_url,
        "OPENAI_API_KEY": key,
    }
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


def exports(variables_: dict[str, str], shell: str, unset: tuple[str, ...] = ()) -> str:
    """Lines that set ``variables_`` and unset ``unset`` in ``shell``."""
    if shell not in SHELLS:
        raise ProfileError(f"--shell {shell!r}: use one of {', '.join(SHELLS)}")
    lines = []
    for name in unset:
        if shell == "fish":
            lines.append(f"set -e {name}")
        elif shell == "powershell":
            lines.append(f"Remove-Item Env:{name} -ErrorAction SilentlyContinue")
        else:
            lines.append(f"unset {name}")
    for name, value in variables_.items():
        if shell == "fish":
            lines.append(f"set -gx {name} {_quote(shell, value)}")
        elif shell == "powershell":
            lines.append(f"$env:{name} = {_quote(shell, value)}")
        else:
            lines.append(f"export {name}={_quote(shell, value)}")
    return "\n".join(lines)

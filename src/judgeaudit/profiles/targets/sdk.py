"""SDK environment: exports for one shell, or the environment of one command.

Setting the profile's variables is not enough: a program reads others beside them, and a shell
often holds another provider's. The legacy ``openai`` package (< 1) and LangChain read
``OPENAI_API_BASE`` (unset there, openai < 1 sends the key to api.openai.com), so it is set to
the profile's URL too; the Anthropic SDK prefers a shell's ``ANTHROPIC_API_KEY`` over the
profile's ``ANTHROPIC_AUTH_TOKEN``; organisation and project ids, Azure's endpoint and key, and
Claude Code's cloud switches and model tiers name another account or endpoint. Those are
:func:`judgeaudit.profiles.execenv.cleared`: removed from the command's environment, unset
by the shell exports.
"""

from __future__ import annotations

from judgeaudit.profiles.model import ANTHROPIC_FAMILY, Profile, ProfileError
from judgeaudit.profiles.names import SHELLS as SHELLS


def variables(profile: Profile, key: str) -> dict[str, str]:
    """OPENAI_* for any OpenAI SDK (the OpenAI-style base, :meth:`Profile.openai_base`), plus
    the profile's own prefix (e.g. TAOTOKEN_*, the same key; the base for that family,
    :meth:`Profile.family_base`: ``ANTHROPIC`` gets the one without ``/v1``)."""
    base = profile.openai_base()
    out = {
        "OPENAI_BASE_URL": base,
        "OPENAI_API_BASE": base,
        "OPENAI_API_KEY": key,
    }
    if profile.model:
        out["OPENAI_MODEL"] = profile.model
    prefix = profile.option("env_prefix")
    if prefix:  # checked where every profile is made (model.profile_from_dict)
        prefix = str(prefix).upper()
        out[f"{prefix}_BASE_URL"] = profile.family_base(prefix)
        out[f"{prefix}_API_KEY"] = key
        if profile.model:
            out[f"{prefix}_MODEL"] = profile.model
    if profile.app == "claude":
        out["ANTHROPIC_BASE_URL"] = profile.family_base(ANTHROPIC_FAMILY)
        out["ANTHROPIC_AUTH_TOKEN"] = key
        if profile.model:
            out["ANTHROPIC_MODEL"] = profile.model
    return out


def _quote(shell: str, value: str) -> str:
    if shell == "powershell":
        return "'" + value.replace("'", "''") + "'"
    return "'" + value.replace("'", "'\\''") + "'"


#: Per shell: the line that unsets a variable, and the one that exports it.
LINES = {
    "fish": ("set -e {name}", "set -gx {name} {value}"),
    "powershell": ("Remove-Item Env:{name} -ErrorAction SilentlyContinue", "$env:{name} = {value}"),
}
POSIX_LINES = ("unset {name}", "export {name}={value}")


def exports(variables_: dict[str, str], shell: str, unset: tuple[str, ...] = ()) -> str:
    """Lines that set ``variables_`` and unset ``unset`` in ``shell``."""
    if shell not in SHELLS:
        raise ProfileError(f"--shell {shell!r}: use one of {', '.join(SHELLS)}")
    unset_line, export_line = LINES.get(shell, POSIX_LINES)
    lines = [unset_line.format(name=name) for name in unset]
    lines += [
        export_line.format(name=name, value=_quote(shell, value))
        for name, value in variables_.items()
    ]
    return "\n".join(lines)

"""What a Claude Code token variable set above or beside the switch does, said once.

``profile use`` (and its preview, the app's) and ``profile doctor`` name a leftover
``ANTHROPIC_AUTH_TOKEN`` / ``ANTHROPIC_API_KEY`` in the same words: where it is set, its last
four characters masked (never the value), the host Claude Code sends it to, and whose key it
displaces (observed with Claude Code 2.1.332: the token is the bearer instead of
``apiKeyHelper``'s key, the API key goes as ``x-api-key`` beside it).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from judgeaudit.credentials import mask_inline_credentials
from judgeaudit.profiles import bridgeopt
from judgeaudit.profiles.model import Profile
from judgeaudit.redact import mask

#: Where Claude Code sends its requests when nothing sets ``ANTHROPIC_BASE_URL``.
CLAUDE_DEFAULT_BASE = "https://api.anthropic.com"


def shown(value: object) -> str:
    """A key as every line shows it: its last four, masked."""
    return f"set ({mask(str(value))})" if value else "set but empty"


def host(url: object) -> str:
    """The host (and port) ``url`` names, without any ``user:password@`` before it: a warning
    names where a token goes, never a credential of the URL's own."""
    try:
        netloc = urlsplit(str(url)).netloc
    except ValueError:
        netloc = ""
    return netloc.rpartition("@")[2] or repr(mask_inline_credentials(str(url)))


def where(path: Path | None) -> str:
    """The start of a warning about a variable set in a layer: its file's ``env.``, or this
    terminal."""
    return f"{path}: env." if path else "in this terminal's environment, "


def fix(scope: str) -> str:
    if scope == "shell":
        return "unset it"
    return "ask your administrator" if scope == "managed" else "remove it from that file"


def token_warning(
    variable: str,
    value: object,
    scope: str,
    path: Path | None,
    *,
    to: str,
    instead_of: str,
    profile: Profile | None = None,
) -> str:
    """The one sentence: ``variable`` set to ``value`` in the layer ``scope``/``path`` is sent to
    the base URL ``to`` in place of (or beside) ``instead_of``. A switched bridged ``profile``
    is said as what the token does to its bridge, with exec's way round it."""
    said = f"{where(path)}{variable} is {shown(value)}: Claude Code sends it to {host(to)}"
    if profile is not None and bridgeopt.uses_bridge(profile):
        if variable == "ANTHROPIC_AUTH_TOKEN":
            what = (
                f"as the bearer token instead of {profile.name}'s bridge token: the bridge "
                "refuses its requests, and"
            )
        else:
            what = f"as x-api-key beside {profile.name}'s bridge token, and"
        return (
            f"{said} {what} whatever holds that port while the bridge is stopped gets it (unset "
            f"it, or start Claude Code with `judgeaudit exec {profile.name} -- claude`, which "
            "leaves it out)"
        )
    if variable == "ANTHROPIC_API_KEY":
        return (
            f"{said} as x-api-key beside {instead_of}: if it is a real Anthropic key, that "
            f"gateway receives it ({fix(scope)})"
        )
    return f"{said} as the bearer token instead of {instead_of} ({fix(scope)})"


def env_key(profile: Profile, variable: str, value: object, *, to: str) -> str:
    """A token in this terminal beside a ``key_mode = "env"`` profile: it is the key (Claude
    Code takes it from its environment), not a leftover in its place; said so, with the host it
    goes to, so a token of another provider can still be seen there."""
    header = "the bearer token" if variable == "ANTHROPIC_AUTH_TOKEN" else "x-api-key"
    return (
        f"{where(None)}{variable} is {shown(value)}: Claude Code sends it to {host(to)} as "
        f"{header}, as profile {profile.name}'s key (key_mode env takes the key from this "
        f"environment; if it is another provider's, export {profile.name}'s key there instead)"
    )


def over_bridge(profile: Profile, variable: str, value: object) -> str:
    """A token exported in this terminal beside a globally switched bridged profile; ``exec``
    leaves both out of the command's environment."""
    local = bridgeopt.local_url(profile)
    return token_warning(variable, value, "shell", None, to=local, instead_of="", profile=profile)

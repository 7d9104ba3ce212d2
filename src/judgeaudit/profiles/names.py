"""Profile and key names, and the error for a bad one: kept apart from the profile model so
``key print`` (run before every Claude Code / Codex session) need not import the model, TOML
reading and the validation layer just to check a keyring entry's name."""

from __future__ import annotations

import re

from judgeaudit.errors import InputError
from judgeaudit.redact import looks_like_key

#: The longest profile name (the checker's pattern and the importers' cut).
NAME_MAX = 63
NAME_RE = re.compile(rf"^[a-z0-9][a-z0-9_-]{{0,{NAME_MAX - 1}}}$")

#: The shells `judgeaudit env` writes exports for.
SHELLS = ("bash", "zsh", "fish", "powershell")


class ProfileError(InputError):
    """A bad profile or a refused action; one line naming the file/field and the fix."""


def check_name(name: str, what: str = "profile name") -> str:
    if looks_like_key(name):  # a key pasted where a name belongs: never echo it
        raise ProfileError(
            f"{what}: that looks like an API key itself, not a name; give the name of a "
            "keyring entry or profile (e.g. taotoken) and store keys with `judgeaudit key set "
            "NAME`"
        )
    if not NAME_RE.match(name):
        shown = name if len(name) <= 40 else name[:37] + "..."  # a 100 KB name stays one line
        raise ProfileError(
            f"{what} {shown!r}: use 1-{NAME_MAX} lowercase letters, digits, '-' or '_' (no paths, no dots)"
        )
    return name

"""The key commands judgeaudit writes into a tool's files (Claude Code's ``apiKeyHelper``,
Codex's ``auth``), built and recognised here only: ``key print KEY`` (a keyring entry),
``key bridge-token PROFILE`` (a bridged profile's local token) and :data:`PRINT_ENV` (the
variable a ``key_env`` profile names). Anything else a file runs is someone else's command,
which the tool starts with its whole environment: what it prints cannot be known (``exec``'s
guard assumes it may print any variable, :mod:`~judgeaudit.profiles.execguard`)."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Literal

from judgeaudit.profiles.targets import PRINT_ENV

#: What one of ours reads: a keyring entry, a local bridge token, an environment variable.
Source = Literal["keyring", "token", "env"]

_PYTHON = re.compile(r"python(\d+(\.\d+)*)?(\.exe)?", re.IGNORECASE)


def key_print(key: str) -> list[str]:
    """Prints the keyring entry ``key`` (this very interpreter: it works from any shell)."""
    return [sys.executable, "-m", "judgeaudit", "key", "print", key]


def bridge_token(profile: str) -> list[str]:
    """Prints the local bridge token of ``profile`` (docs/bridge.md, 'Global switch')."""
    return [sys.executable, "-m", "judgeaudit", "key", "bridge-token", profile]


def print_env(variable: str) -> list[str]:
    """Prints ``variable``, or says in one line that it is not set."""
    return [sys.executable, "-c", PRINT_ENV, variable]


def ours(argv: Sequence[str]) -> tuple[Source, str] | None:
    """What one of judgeaudit's key commands reads (its keyring entry, token's profile or
    variable), or None for any other command. A Python interpreter (``python``, ``python3.12``,
    any directory: another venv wrote it) with exactly our arguments; the same arguments after
    another program (a script ignores them) are not ours."""
    if len(argv) < 2 or not _PYTHON.fullmatch(re.split(r"[\\/]", argv[0])[-1]):
        return None
    args = list(argv[1:])
    if len(args) == 3 and args[:2] == ["-c", PRINT_ENV]:
        return "env", args[2]
    if len(args) == 5 and args[:3] == ["-m", "judgeaudit", "key"]:
        if args[3] == "print":
            return "keyring", args[4]
        if args[3] == "bridge-token":
            return "token", args[4]
    return None


def keyring_read(argv: Sequence[str]) -> str | None:
    """The keyring entry ``argv`` prints when it is our ``key print KEY``, else None."""
    own = ours(argv)
    return own[1] if own is not None and own[0] == "keyring" else None

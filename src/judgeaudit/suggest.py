"""The commands judgeaudit suggests a user type next, in one place: every word quoted for a POSIX
shell where it needs it (``shlex.quote``), so a suggested line pastes as it is printed whatever a
path holds (a space, a quote, a non-ASCII letter). Any layer may import it; it imports nothing of
ours."""

from __future__ import annotations

import shlex
from pathlib import Path


def command(*words: str | Path) -> str:
    """``judgeaudit WORD...`` with each word quoted only where a shell needs it: ``command("report",
    Path("my runs/a"))`` is ``judgeaudit report 'my runs/a'``."""
    return " ".join(["judgeaudit", *(shlex.quote(str(word)) for word in words)])

"""What a path is when it is not a regular file, in words (no judgeaudit imports, so the profile
model and the live-file layer can both refuse such paths without importing each other)."""

from __future__ import annotations

import stat

KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def kind_of(mode: int) -> str:
    """``"a FIFO"``, ``"a directory"``, ... for a non-regular ``st_mode``."""
    return next((name for test, name in KINDS if test(mode)), "not a regular file")

"""Reading and writing the tools' live files safely, and the one lock every switch takes.

Only regular files are read or replaced (after following links): a device node, FIFO, socket or
directory is refused with one line, never opened (a FIFO would block forever). The lock is
``filelock`` (no POSIX-only primitive), one for all apps, so switches of Claude Code and Codex
never race on the shared state and backups.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from judgeaudit.fsutil import atomic_write_bytes
from judgeaudit.profiles.model import ProfileError

LOCK_TIMEOUT_ENV = "JUDGEAUDIT_LOCK_TIMEOUT_S"
DEFAULT_LOCK_TIMEOUT_S = 60.0
KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(path: Path, mode: int) -> ProfileError:
    kind = next((name for test, name in KINDS if test(mode)), "not a regular file")
    return ProfileError(
        f"{path}: is {kind} (after following links); judgeaudit only edits regular files, "
        "nothing was changed"
    )


def real_path(path: Path) -> Path:
    return Path(os.path.realpath(path))


def read_live(path: Path) -> bytes | None:
    """The file's bytes, ``None`` if it does not exist, or a refusal if it is not a regular file."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(path, info.st_mode)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        if not stat.S_ISREG(mode):  # swapped between stat and open
            raise _not_regular(path, mode)
        return handle.read()


def write_live(path: Path, content: bytes | None, *, secret: bool = False) -> None:
    """Replace the file behind ``path`` (through links), keeping its mode; 0600 for secrets.
    ``None`` removes it."""
    real = real_path(path)
    if content is None:
        real.unlink(missing_ok=True)
        return
    try:
        info = os.stat(real)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode)
        mode = stat.S_IMODE(info.st_mode)
    except FileNotFoundError:
        mode = 0o600
    atomic_write_bytes(real, content, mode=0o600 if secret else mode)


def lock_timeout() -> float:
    try:
        return float(os.environ.get(LOCK_TIMEOUT_ENV, DEFAULT_LOCK_TIMEOUT_S))
    except ValueError:
        return DEFAULT_LOCK_TIMEOUT_S


@contextlib.contextmanager
def switch_lock(root: Path) -> Iterator[None]:
    """Serialize every switch, off, restore and state write of this config directory."""
    folder = root / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(folder / "switch.lock"), timeout=lock_timeout())
    try:
        with lock:
            yield
    except Timeout:
        raise ProfileError(
            f"another judgeaudit is switching profiles ({folder / 'switch.lock'} is held); "
            "try again"
        ) from None

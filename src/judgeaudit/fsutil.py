"""Atomic file writes (temp file in the same directory, fsync, os.replace, directory fsync), and
telling a full disk apart from other write failures."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TextIO

from judgeaudit.errors import InputError

#: The mode of the files judgeaudit writes (``mkstemp``'s, kept by :func:`_atomic`): a run's files
#: quote conversations and judge replies. A file another writer made (DuckDB's Parquet) gets it
#: from :func:`replace_private`.
PRIVATE = 0o600

_SPECIAL = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
}


def refuse_special(path: Path) -> None:
    """Refuse to replace a FIFO, a device or a socket: a rename would put a file in its place
    (as root, ``--out /dev/full`` replaced the device node), nor a symlink to one (``--out
    /dev/stdout`` would replace the link). A missing path, a regular file and a symlink to one
    (the link itself is replaced, as before) are fine."""
    for look in (os.lstat, os.stat):  # the path itself, then what a symlink points to
        try:
            kind = stat.S_IFMT(look(path).st_mode)
        except OSError:
            return  # missing, dangling (or unreachable: the write itself will say why)
        if kind in _SPECIAL:
            raise InputError(
                f"{path}: is {_SPECIAL[kind]}, not a regular file; give a file path (nothing "
                "was written)"
            )


@contextlib.contextmanager
def _atomic(
    path: Path, mode: int | None, text: bool, durable: bool = True
) -> Iterator[IO[bytes] | IO[str]]:
    """Yield a handle on a temp file that replaces ``path`` only if the block succeeds.
    ``durable=False`` skips the syncs, for a batch whose caller syncs once at its end."""
    refuse_special(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:  # name the file being replaced, not the temp file never made
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        handle: IO[bytes] | IO[str]
        handle = os.fdopen(fd, "w", encoding="utf-8", newline="") if text else os.fdopen(fd, "wb")
        with handle:
            yield handle
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)


def private_dir(folder: Path) -> Path:
    """``folder``, made 0700 (its parents with the umask's mode), or tightened to 0700 when it
    exists with group or other bits: the file names inside are only its owner's to list."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if os.name != "nt":
        with contextlib.suppress(OSError):  # not ours to change (another owner): written as is
            if stat.S_IMODE(folder.stat().st_mode) & 0o077:
                os.chmod(folder, 0o700)
    return folder


def replace_private(made: Path, path: Path) -> None:
    """Move ``made`` (a finished file another library wrote, with the umask's mode) over ``path``
    as :data:`PRIVATE`, like every file :func:`_atomic` writes."""
    os.chmod(made, PRIVATE)
    os.replace(made, path)


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable where the platform allows it (Windows cannot open a directory)."""
    if os.name == "nt":
        return
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass  # some filesystems refuse fsync on a directory; the rename itself is done
    finally:
        os.close(dir_fd)


def atomic_write_bytes(
    path: Path, data: bytes, mode: int | None = None, durable: bool = True
) -> None:
    """Replace ``path`` with ``data`` so readers see the old or the new file, never half."""
    with _atomic(path, mode, text=False, durable=durable) as handle:
        handle.write(data)  # type: ignore[arg-type]


def atomic_write_text(path: Path, text: str, mode: int | None = None, durable: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode, durable)


@contextlib.contextmanager
def atomic_writer(path: Path, mode: int | None = None) -> Iterator[TextIO]:
    """Stream text into ``path`` atomically (for exports too large to build as one string)."""
    with _atomic(path, mode, text=True) as handle:
        yield handle  # type: ignore[misc]


def is_disk_full(exc: BaseException) -> bool:
    """True for a full disk or quota, however it surfaces (OSError, or SQLite's own message)."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    message = str(exc).lower()
    return isinstance(exc, sqlite3.Error) and ("disk is full" in message or "disk full" in message)


def process_alive(pid: int) -> bool:
    """Whether ``pid`` may still run, for sweeping the temp files of killed processes: only a
    pid the kernel says does not exist is dead. Someone else's process, or a number no process
    can have (a hand-made name in a shared temp dir), is left alone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True
    return True

"""Reading and writing the tools' live files safely, and the one lock every switch takes.

Only regular files are read or replaced (after following links): a device node, FIFO, socket or
directory is refused with one line, never opened (a FIFO would block forever). The lock is
``filelock`` (no POSIX-only primitive), one for all apps, so switches of Claude Code and Codex
never race on the shared state and backups.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from judgeaudit import safeio
from judgeaudit.fsutil import atomic_write_bytes
from judgeaudit.profiles.filekind import kind_of
from judgeaudit.profiles.model import ProfileError

LOCK_TIMEOUT_ENV = "JUDGEAUDIT_LOCK_TIMEOUT_S"
DEFAULT_LOCK_TIMEOUT_S = 60.0


def _not_regular(path: Path, mode: int) -> ProfileError:
    kind = kind_of(mode)
    return ProfileError(
        f"{path}: is {kind} (after following links); judgeaudit only edits regular files, "
        "nothing was changed"
    )


def real_path(path: Path) -> Path:
    return Path(os.path.realpath(path))


def read_live(path: Path) -> bytes | None:
    """The file's bytes, ``None`` if it does not exist, or a refusal if it is not a regular file,
    is too large, or nests too deeply for the tools' parsers (the bounded reader of
    :mod:`judgeaudit.safeio`)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(path, info.st_mode)
    try:
        data = safeio.read_bytes(path, "settings file", ProfileError)
    except ProfileError:
        if not os.path.lexists(path):
            return None
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):  # swapped between stat and open
            raise _not_regular(path, mode) from None
        raise
    if safeio.text_depth(data) > safeio.MAX_DEPTH:
        raise ProfileError(
            f"{path}: nested more than {safeio.MAX_DEPTH} levels deep, which no tool reads; "
            "fix or move the file aside (nothing was changed)"
        )
    return data


def mode_of(path: Path) -> int | None:
    """The permission bits of the file behind ``path``, ``None`` if there is none."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None


def read_only_line(path: Path, *, dry_run: bool = False) -> str | None:
    """One line when the owner made the file behind ``path`` read-only (no owner write bit), or
    None. Such a file says "do not touch": an atomic replace (a new file renamed over it) would
    succeed anyway and lose that, so ``use``, ``off`` and ``restore`` all refuse it (a dry run
    says the real command will)."""
    mode = mode_of(path)
    if mode is None or mode & stat.S_IWUSR:
        return None
    fix = f"chmod u+w {shlex.quote(str(path))}"
    if dry_run:
        return (
            f"{path}: is read-only (mode {mode:04o}); without --dry-run the command refuses and "
            f"leaves it alone; make it writable ({fix}) first"
        )
    return (
        f"{path}: is read-only (mode {mode:04o}), so judgeaudit leaves it alone; make it "
        f"writable ({fix}) and run the command again; nothing was changed"
    )


def refuse_read_only(paths: Iterable[Path]) -> None:
    """Refuse the whole command, before anything is written, if any of ``paths`` (the files it
    would change) is read-only: :func:`read_only_line`."""
    for path in paths:
        line = read_only_line(path)
        if line is not None:
            raise ProfileError(line)


def write_live(path: Path, content: bytes | None, *, mode: int | None = None) -> None:
    """Replace the file behind ``path`` (through links) with ``mode``, or keeping its mode when
    ``mode`` is None (0600 for a new file). ``None`` content removes it."""
    real = real_path(path)
    if content is None:
        real.unlink(missing_ok=True)
        return
    try:
        info = os.stat(real)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode)
        current = stat.S_IMODE(info.st_mode)
    except FileNotFoundError:
        current = 0o600
    atomic_write_bytes(real, content, mode=current if mode is None else mode)


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

"""A passed column check remembered across processes, for a file state no edit can keep.

Checking every column of a 1M-pair ``audit.db`` costs about 1.5 s of CPU, more than DuckDB's
whole report on it, and every ``report`` process paid it again for the same unchanged file.
A pass is now remembered in the user's cache directory (``$XDG_CACHE_HOME/judgeaudit/``, or
``JUDGEAUDIT_CACHE_DIR``; empty turns it off), keyed on what any write changes:

- the file's device, inode, size, mtime and **ctime** (the kernel sets ctime on every write,
  ``touch``, ``chmod`` or rename into place; no user call can set it back), and its real path,
  so an edit, a copy or a restored backup (``cp -p`` keeps mtime, not ctime) is checked again;
- SQLite's file change counter and schema cookie (header bytes 24 and 40);
- the ``-wal`` file: an absent or empty one holds nothing (the first reader may create it); a
  non-empty one adds its own identity and times;
- the rules themselves (a release that checks more checks again).

A state is remembered only when its times are :data:`RACY_NS` older than the clock (as git's
"racily clean" entries): on a filesystem with coarse timestamps an edit within the same tick
after the check could otherwise keep every field. What can still pass unchecked is written in
docs/security.md. The cache is a bounded JSON list of digests, written atomically; a garbage,
foreign-owned or unwritable cache is ignored (the check runs, nothing fails).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import time
from pathlib import Path

#: How old (ns) a file's mtime and ctime must be before a pass on it is remembered.
RACY_NS = 2_000_000_000
#: At most this many remembered states (the oldest go first); about 70 bytes each.
KEEP = 256
MEMO = "column-check.json"
VERSION = 1


def cache_dir() -> Path | None:
    """Where passes are remembered; ``None`` when ``JUDGEAUDIT_CACHE_DIR`` is set empty."""
    override = os.environ.get("JUDGEAUDIT_CACHE_DIR")
    if override is not None:
        return Path(override) if override else None
    import platformdirs

    return Path(platformdirs.user_cache_dir("judgeaudit"))


def file_state(path: Path) -> tuple[tuple[object, ...], int]:
    """(the state of ``path`` and its WAL, the newest of their times in ns): equal states mean
    the same bytes unless someone reset the clock or wrote under the filesystem."""
    st = os.stat(path)
    with path.open("rb") as handle:
        header = handle.read(100)
    parts: list[object] = [
        os.path.realpath(path),
        (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns),
        header[24:28].hex(),
        header[40:44].hex(),
    ]
    newest = max(st.st_mtime_ns, st.st_ctime_ns)
    try:
        wal = os.stat(f"{path}-wal")
    except FileNotFoundError:
        parts.append(0)  # as an empty one: the first reader creates it, no content changes
    else:
        # an empty WAL holds no pages; its times change on every read (a reader opens it)
        if wal.st_size == 0:
            parts.append(0)
        else:
            parts.append((wal.st_dev, wal.st_ino, wal.st_size, wal.st_mtime_ns, wal.st_ctime_ns))
            newest = max(newest, wal.st_mtime_ns, wal.st_ctime_ns)
    return tuple(parts), newest


def digest(state: tuple[object, ...], rules: str) -> str:
    return hashlib.blake2b(repr((state, rules)).encode(), digest_size=16).hexdigest()


def read_private(path: Path, limit: int) -> bytes | None:
    """A cache file's bytes, or None for a missing, oversized, non-regular or untrusted one
    (the one trusted reader of the cache; the report memo reads through it too)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        # a file another user could have written is not trusted (POSIX only)
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
            return None
        return os.read(fd, st.st_size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def write_private(folder: Path, name: str, text: str) -> None:
    """Replace ``folder/name`` atomically in a folder only the user can enter; never fails."""
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, folder / name)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _load(folder: Path) -> list[str]:
    """The remembered digests, or none for a missing, garbage or untrusted file."""
    raw = read_private(folder / MEMO, 64 * KEEP * 2)
    if raw is None:
        return []
    try:
        data = json.loads(raw)
    except ValueError:
        return []
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return []
    found = data.get("passed")
    if not isinstance(found, list):
        return []
    return [d for d in found if isinstance(d, str)]


def remembered(key: str) -> bool:
    """Whether a pass of this state was remembered (by any process)."""
    folder = cache_dir()
    return folder is not None and key in _load(folder)


def remember(key: str, newest_ns: int, started_ns: int) -> None:
    """Remember a pass, unless the file changed too recently to trust its times; never fails."""
    folder = cache_dir()
    if folder is None or started_ns - newest_ns < RACY_NS:
        return
    kept = [d for d in _load(folder) if d != key][-(KEEP - 1) :]
    write_private(folder, MEMO, json.dumps({"version": VERSION, "passed": [*kept, key]}))


def now_ns() -> int:
    return time.time_ns()


def settled(started_ns: int, newest_ns: int) -> bool:
    """Whether files whose newest time is ``newest_ns`` are old enough, at ``started_ns``, for
    their state alone to stand for their bytes (:data:`RACY_NS`)."""
    return started_ns - newest_ns >= RACY_NS


def content_digest(paths: list[Path]) -> str | None:
    """SHA-256 over the bytes of ``paths`` in order (an absent or empty file as one marker: an
    empty WAL holds nothing), or None when one cannot be read: what stands for a racy state's bytes, as git compares the content
    of a "racily clean" entry. About 0.25 s for a 300 MB audit.db on this project's machine."""
    total = hashlib.sha256()
    for path in paths:
        total.update(f"\0{path.name}\0".encode())
        try:
            with path.open("rb") as handle:
                if os.fstat(handle.fileno()).st_size == 0:
                    raise FileNotFoundError
                total.update(hashlib.file_digest(handle, "sha256").digest())
        except FileNotFoundError:
            total.update(b"absent")
        except OSError:
            return None
    return total.hexdigest()

"""One bounded reader for every file judgeaudit opens, and one depth limit for every parse.

Why one module: a FIFO, a device, a 2 GB sparse file or a 10,000-deep JSON document must get
the same one-line answer wherever it is given (an importer, a template, a spec, settings.json,
a state file, an audit database), and must never block, exhaust memory or overflow the stack.

- Files are opened with ``O_NONBLOCK`` and checked with ``fstat`` on the open descriptor, so a
  FIFO is refused without waiting for a writer, and a file swapped after a ``stat`` is caught.
- The size is checked before anything is read (``st_size``), and the read itself stops at the
  cap (``/proc`` files report 0), so memory stays bounded whatever the file claims.
- Streamed files (JSONL) are read a line at a time with a per-line cap.
- Parsed JSON/TOML is refused past :data:`MAX_DEPTH` levels, checked without recursion.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path
from shlex import quote
from typing import IO, Any

from judgeaudit.errors import InputError

ErrorType = type[InputError]

MB = 1024 * 1024
#: Override every cap (in MB) for a legitimately larger file.
CAP_ENV = "JUDGEAUDIT_MAX_FILE_MB"
#: Whole-file documents (specs, templates, settings, state, result files read whole).
DOCUMENT_CAP = 256 * MB
#: One line of a streamed JSONL file.
LINE_CAP = 64 * MB
#: Nesting of any parsed JSON/TOML value; real files stay far below it.
MAX_DEPTH = 64


def cap(default: int) -> int:
    """``default`` bytes, or what ``JUDGEAUDIT_MAX_FILE_MB`` says (a positive number of MB)."""
    raw = os.environ.get(CAP_ENV, "").strip()
    try:
        value = float(raw) if raw else 0.0
    except ValueError:
        value = 0.0
    return int(value * MB) if value > 0 else default


def _size(n: int) -> str:
    return f"{n / MB:.0f} MB" if n >= MB else f"{n} bytes"


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _open_error(path: Path, what: str, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return f"{path}: is a symlink loop; give the {what} file itself"
    return f"{path}: cannot read {what}: {exc.strerror or exc}"


def open_regular(
    path: Path, what: str, error: ErrorType = InputError, *, max_bytes: int | None = None
) -> IO[bytes]:
    """A binary handle on ``path`` if it is a regular file within ``max_bytes``; otherwise one
    line naming the file and what to do. Never blocks on a FIFO."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise error(f"{path}: is a directory; give the {what} file") from None
    except OSError as exc:
        raise error(_open_error(path, what, exc)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise error(f"{path}: is a directory; give the {what} file")
        if not stat.S_ISREG(info.st_mode):
            raise error(
                f"{path}: is {kind_of(info.st_mode)}, not a regular file; give the {what} file "
                "(judgeaudit never reads pipes or devices)"
            )
        if max_bytes is not None and info.st_size > max_bytes:
            raise error(too_large(path, what, info.st_size, max_bytes))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def too_large(path: Path | str, what: str, size: int | None, max_bytes: int) -> str:
    shown = f"is {_size(size)}" if size is not None else f"is larger than {_size(max_bytes)}"
    return (
        f"{path}: {shown}, over the {_size(max_bytes)} limit ({what}); check the file "
        f"(or set {CAP_ENV} to allow more)"
    )


def read_bytes(
    path: Path, what: str, error: ErrorType = InputError, *, max_bytes: int | None = None
) -> bytes:
    """The whole regular file, refused with one line past ``max_bytes`` (default: the document
    cap). Stops reading at the cap even if the file grows or lies about its size."""
    limit = max_bytes if max_bytes is not None else cap(DOCUMENT_CAP)
    with open_regular(path, what, error, max_bytes=limit) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise error(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise error(too_large(path, what, None, limit))
    return data


def read_optional(
    path: Path, what: str, error: ErrorType = InputError, *, max_bytes: int | None = None
) -> bytes | None:
    """Like :func:`read_bytes`, but ``None`` when there is no file (or a dangling link)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        pass  # a loop or a permission problem: read_bytes says which
    return read_bytes(path, what, error, max_bytes=max_bytes)


def iter_lines(
    handle: IO[bytes], path: Path, what: str, error: ErrorType = InputError
) -> Iterator[bytes]:
    """The lines of a streamed file, each refused past the line cap (a 2 GB file with no
    newline is stopped after the cap, not read whole)."""
    limit = cap(LINE_CAP)
    number = 0
    while True:
        raw = handle.readline(limit + 1)
        if not raw:
            return
        number += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            raise error(
                f"{path}:{number}: a line longer than {_size(limit)}; check the {what} file "
                f"(or set {CAP_ENV} to allow more)"
            )
        yield raw


def check_regular(path: Path, what: str, error: ErrorType = InputError) -> None:
    """Refuse ``path`` unless it is absent or a regular file (an ``audit.db`` that is a FIFO
    would block SQLite forever). Opening is non-blocking; nothing is read."""
    if not os.path.lexists(path):
        return
    open_regular(path, what, error).close()


def refused_write(exc: OSError) -> str | None:
    """One line for a write the system refused (permissions, an immutable or read-only
    directory) or a path it cannot name (a file or folder name over the file system's limit),
    or ``None`` for any other error. Writes are atomic (temp file, then rename), so a refused
    one leaves the old file in place."""
    where = str(exc.filename2 or exc.filename or "a file")  # a rename's target is filename2
    if exc.errno == errno.ENAMETOOLONG:
        return _too_long(where)
    if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
        return None
    return (
        f"{where}: {exc.strerror or 'not permitted'}; fix its permissions (an immutable or "
        "read-only directory?) or choose another place (the old file was left as it was)"
    )


def not_utf8(text: str) -> bool:
    """Whether ``text`` holds bytes the system could not decode (a name that is not UTF-8:
    Python keeps such bytes as lone surrogates, which SQLite, JSON and state files refuse)."""
    return any("\udc80" <= char <= "\udcff" for char in text)


def _too_long(where: str) -> str:
    """The part of ``where`` over the usual 255 bytes a name, or the whole path over the
    system's limit (4096 bytes), said with its length: the first 40 characters of a path need
    not show what is too long (reviewer)."""
    long = [part for part in where.split(os.sep) if len(os.fsencode(part)) > 255]
    if long:
        part = long[0]
        return (
            f"{part[:40]}… ({len(os.fsencode(part))} bytes): a file or folder name too long "
            "for the file system (usually 255 bytes a name); choose a shorter one"
        )
    return (
        f"{where[:40]}… ({len(os.fsencode(where))} bytes): a path too long for the system; "
        "choose a shorter one"
    )


def file_in_path(path: Path) -> Path | None:
    """The first existing ancestor of ``path`` that is not a directory (``afile`` of
    ``afile/x.csv``), where nothing can be created: None when there is none."""
    for parent in path.parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None


def check_writable(folder: Path, flag: str, error: ErrorType = InputError) -> None:
    """Refuse a directory nothing can be created in, by creating (and removing) a probe file:
    ``os.access`` says yes to root even where the directory is immutable."""
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".judgeaudit-probe-")
    except OSError as exc:
        raise error(
            f"{folder}: cannot write there ({exc.strerror}); choose another {flag}"
        ) from None
    os.close(fd)
    os.unlink(probe)


# --- depth ----------------------------------------------------------------------------------


def depth_of(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply ``value`` nests (a scalar is 0), counted without recursion; stops early once
    past ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        if deepest > limit:
            return deepest
        stack.extend((child, level) for child in children)
    return deepest


def too_deep(where: str, what: str) -> str:
    return f"{where}: nested too deeply (more than {MAX_DEPTH} levels); flatten the {what}"


def check_depth(value: Any, where: str, what: str, error: ErrorType = InputError) -> Any:
    if depth_of(value) > MAX_DEPTH:
        raise error(too_deep(where, what))
    return value


_STRINGS = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')
_BRACKETS = re.compile(rb"[\[\]{}]")


def text_depth(data: bytes) -> int:
    """How deeply the brackets of a JSON or TOML text nest (strings skipped), without parsing
    it: checked before a parser that recurses (tomllib, tomlkit, our JSON editor) sees it."""
    if _openers(data) <= MAX_DEPTH:
        return 0  # cannot nest deeper than it has brackets
    depth = deepest = 0
    for match in _BRACKETS.finditer(_STRINGS.sub(b"", data)):
        if match.group() in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(0, depth - 1)
    return deepest


def json_problem(exc: json.JSONDecodeError) -> str:
    """The decoder's message without its dangling "at" ("Invalid control character at"), for
    a message that says where itself."""
    return exc.msg.removesuffix(" at")


#: A TOML table header (``[run]``, ``[[tasks]]``, ``[judge.scores]``) alone on a line, which a JSON
#: array's first line never is (``[`` then a value).
TOML_HEADER = re.compile(r"\s*\[\[?\s*[A-Za-z0-9_-]+(\s*\.\s*[A-Za-z0-9_-]+)*\s*\]\]?\s*(#.*)?$")


def pretty_json(line: str, started: bool, path: Path) -> str:
    """What a JSONL reader adds where a pretty-printed JSON document was given (the file's first
    line opens an array, or a line is a lone ``{``): the error alone named a column, not the
    cause. ``started``: an object was read before this line."""
    if not started and TOML_HEADER.match(line):
        return f"; {path.name} looks like TOML (its first line is a table header, {line.strip()}): give the JSON-lines file, one object per line"
    if not started and line.lstrip().startswith("["):
        return f"; {path.name} is a JSON array: one object per line, e.g. jq -c '.[]' {quote(str(path))}"
    if line.strip() == "{":
        return (
            f"; {path.name} is pretty-printed: one object per line, e.g. jq -c . {quote(str(path))}"
        )
    return ""


class TooDeep(ValueError):
    """A document nested past :data:`MAX_DEPTH` (or past Python's recursion limit)."""


def parse_json(text: str | bytes, decoder: json.JSONDecoder | None = None, **kwargs: Any) -> Any:
    """``json.loads`` with the depth limit; raises :class:`TooDeep` or ``ValueError``. A caller
    parsing millions of lines passes one ``decoder`` for them all (``json.loads`` with options
    builds a new one per call)."""
    try:
        if decoder is not None and isinstance(text, str):
            value = decoder.decode(text)
        else:
            value = json.loads(text, **kwargs)
    except RecursionError:
        raise TooDeep("nested too deeply") from None
    if _openers(text) > MAX_DEPTH and depth_of(value) > MAX_DEPTH:  # else it cannot nest so deep
        raise TooDeep(f"nested more than {MAX_DEPTH} levels deep")
    return value


def _openers(text: str | bytes) -> int:
    """How many ``[`` and ``{`` a text holds (strings included): a bound on how deeply what it
    parses to can nest, counted in C, so the walk of :func:`depth_of` is only paid by a text
    that could be too deep (the walk was two thirds of a recorded run's JSON parsing time)."""
    if isinstance(text, bytes):
        return text.count(b"[") + text.count(b"{")
    return text.count("[") + text.count("{")


def parse_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads`` with the depth limit; raises :class:`TooDeep` or ``ValueError``."""
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise TooDeep("nested too deeply") from None
    if depth_of(value) > MAX_DEPTH:  # dotted keys nest without a bracket: always walked
        raise TooDeep(f"nested more than {MAX_DEPTH} levels deep")
    return value

"""One validation layer for every input file: run specs, task files, pair files, sim configs.

Why one module: the same mistake (a byte that is not UTF-8, a NaN, a number out of range, a
duplicate) must get the same one-line answer wherever it appears, and it must be caught before
anything is written. Every message reads ``file[:line]: field: what is wrong; what to do``, and
every error raised here is an :class:`~judgeaudit.errors.InputError` (exit 2), or the subclass the
caller passes in so existing ``except SpecError`` handlers keep working.
"""

from __future__ import annotations

import difflib
import json
import math
import tomllib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from judgeaudit import safeio
from judgeaudit.errors import InputError
from judgeaudit.json_numbers import STRICT, JsonValueError, refused_field, walk

ErrorType = type[InputError]

#: Python refuses to parse longer integers (CVE-2020-10735); say so in one line instead.
INT64_MAX = 2**63 - 1
BOM = b"\xef\xbb\xbf"
SQLITE_HEADER = b"SQLite format 3\x00"
TEXTS = "the JSONL, JSON or TOML file itself"  # what a text reader takes, unless told


class ValidationError(InputError):
    """An input file or value that cannot be used; the message names where and what to do."""


# --- reading --------------------------------------------------------------------------------


def read_bytes(path: Path, what: str, error: ErrorType = ValidationError) -> bytes:
    """The file's bytes, or one line saying why it cannot be read (missing, a directory...)."""
    return safeio.read_bytes(path, what, error)


def decode_utf8(
    data: bytes, path: Path, error: ErrorType = ValidationError, offset: int = 0
) -> str:
    """Strict UTF-8 (a leading BOM is dropped); a bad byte is named by line and byte offset.

    ``offset`` is where ``data`` starts in the file, for callers that decode line by line.
    """
    try:
        return data.removeprefix(BOM).decode("utf-8") if offset == 0 else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if offset == 0:
            refuse_database(data, path, error)
        start = exc.start + (len(BOM) if offset == 0 and data.startswith(BOM) else 0)
        line = data.count(b"\n", 0, start) + 1
        bad = data[start : start + 1].hex()
        raise error(
            f"{path}:{line}: not UTF-8 (byte 0x{bad} at byte offset {offset + start}); "
            "save the file as UTF-8"
        ) from None


def refuse_database(head: bytes, path: Path, error: ErrorType, wanted: str = TEXTS) -> None:
    """A text file that is an SQLite database (an audit's ``audit.db`` given to ``import``) is
    named so, with what to give instead (``wanted``: what the command takes), not "not UTF-8"."""
    if head.startswith(SQLITE_HEADER):
        raise error(
            f"{path}: is an SQLite database (an audit's audit.db?), not a text file; give {wanted}"
            " (an audit is read by `judgeaudit report DIR`, judged again by `judgeaudit rejudge DIR`)"
        )


def read_text(path: Path, what: str, error: ErrorType = ValidationError) -> str:
    """The whole file as text, read as strict UTF-8."""
    return decode_utf8(read_bytes(path, what, error), path, error)


def read_toml(path: Path, what: str, error: ErrorType = ValidationError) -> dict[str, Any]:
    """A TOML file, refused with one line if unreadable, not UTF-8, invalid, or holding nan/inf."""
    source = read_text(path, what, error)
    try:
        data = safeio.parse_toml(source)
    except safeio.TooDeep:
        raise error(safeio.too_deep(str(path), what)) from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML ({exc}); a {what} is a TOML file") from None
    for key, value in walk(data, ""):
        if isinstance(value, float) and not math.isfinite(value):
            raise error(f"{path}: {key}: {value} is not a usable number; write a finite number")
    return data


def loads_json(
    text: str,
    where: str,
    what: str,
    error: ErrorType = ValidationError,
    *,
    document: str | None = None,
) -> Any:
    """Strict JSON: no NaN/Infinity, no float overflow, no integer too long to parse.

    ``document`` is the hint for a whole-file JSON document (what the file should be); without
    it ``text`` is one line of a JSONL file.
    """
    try:
        return safeio.parse_json(text, STRICT)
    except safeio.TooDeep:
        raise error(safeio.too_deep(where, what)) from None
    except JsonValueError as exc:
        field = refused_field(text)
        raise error(
            f"{where}: {field_name(field)}: {exc}" if field else f"{where}: {exc}"
        ) from None
    except json.JSONDecodeError as exc:
        if document is not None:
            raise error(
                f"{where}: not valid JSON ({safeio.json_problem(exc)} at line {exc.lineno} column "
                f"{exc.colno}); "
                f"{document}"
            ) from None
        # the line's own column: a line read with its newline stops "at line 2 column 1"
        column = min(exc.pos, len(text.rstrip("\r\n"))) + 1
        raise error(
            f"{where}: not valid JSON ({safeio.json_problem(exc)} at column {column}); one {what} "
            "object per line"
        ) from None


#: What a JSONL reader adds when the last line stops mid-object (or mid-character) without a
#: newline: a log copied while it was written, or a write that did not finish.
CUT = (
    "this last line stops mid-object without a newline: the file looks cut off (a copy or a"
    " write that did not finish)"
)


def _ends_early(line: str) -> bool:
    """Whether the JSON of ``line`` fails where its text runs out (a cut file's last line), not
    on a character inside it."""
    try:
        safeio.parse_json(line)
    except json.JSONDecodeError as exc:
        return exc.msg.startswith("Unterminated string") or exc.pos >= len(line.rstrip())
    except ValueError:  # safeio.TooDeep and the rest: a problem inside the line
        return False
    return False


def iter_jsonl(
    path: Path, what: str, error: ErrorType = ValidationError, *, allow_empty: bool = False
) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """Yield ``(file:line, line, object)`` per non-blank line, streaming (constant memory)."""
    handle = safeio.open_regular(path, what, error)
    found = False
    offset = 0
    with handle:
        for number, raw in enumerate(safeio.iter_lines(handle, path, what, error), start=1):
            data = raw.removeprefix(BOM) if number == 1 else raw
            skipped = len(raw) - len(data)
            try:
                line = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                if number == 1:
                    refuse_database(raw, path, error)
                if not raw.endswith(b"\n") and exc.reason == "unexpected end of data":
                    raise error(f"{path}:{number}: {CUT}") from None
                bad = data[exc.start : exc.start + 1].hex()
                raise error(
                    f"{path}:{number}: not UTF-8 (byte 0x{bad} at byte offset "
                    f"{offset + skipped + exc.start}); save the file as UTF-8"
                ) from None
            offset += len(raw)
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = loads_json(line, where, what, error)
            except error as exc:
                if raw.endswith(b"\n") or not _ends_early(line):
                    raise error(f"{exc}{safeio.pretty_json(line, found, path)}") from None
                raise error(f"{exc}; {CUT}") from None
            if not isinstance(row, dict):
                got = f"got {json_type(row)}{safeio.pretty_json(line, found, path)}"
                raise error(f"{where}: expected a JSON object per line, {got}")
            found = True
            yield where, number, row
    if not found and not allow_empty:  # a file of blank lines is as empty to a reader
        blank = " (blank lines only)" if offset else ""
        raise error(f"{path}: the file is empty{blank}: no {what}; write one JSON object per line")


# --- values ---------------------------------------------------------------------------------


def json_type(value: Any) -> str:
    """The JSON name of a value's type, for messages (``a string``, ``a number``...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def integer(value: Any, where: str, lo: int, hi: int, error: ErrorType = ValidationError) -> int:
    """An integer (not a boolean) within ``[lo, hi]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(f"{where}: must be an integer, got {json_type(value)}")
    if not lo <= value <= hi:
        raise error(f"{where}: {short(value)} is out of range; use {lo} to {hi}")
    return value


def number(
    value: Any, where: str, lo: float, hi: float, error: ErrorType = ValidationError
) -> float:
    """A finite number (not a boolean) within ``[lo, hi]``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise error(f"{where}: must be a number, got {json_type(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise error(f"{where}: {value} is not a usable number; write a finite number")
    if not lo <= value <= hi:
        raise error(f"{where}: {short(value)} is out of range; use {lo:g} to {hi:g}")
    return float(value)


def string(
    value: Any, where: str, error: ErrorType = ValidationError, *, empty: bool = False
) -> str:
    """A string; empty or whitespace-only is refused unless ``empty``."""
    if not isinstance(value, str):
        raise error(f"{where}: must be a string, got {json_type(value)}")
    if not empty and not value.strip():
        raise error(f"{where}: is empty; give a value")
    return value


def flag(value: Any, where: str, error: ErrorType = ValidationError) -> bool:
    """0/1 or true/false (the two spellings pair files use)."""
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise error(f"{where}: must be 0/1 or true/false, got {short(value)}")


def short(value: Any) -> str:
    """A value as a message shows it: JSON, cut at 40 characters (a 100,000-character argument
    is still one readable line; a key pasted there is masked before it is cut)."""
    from judgeaudit.credentials import scrub

    shown = scrub(json.dumps(value, ensure_ascii=False, default=str))
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return shown


def unknown_field(where: str, key: str, known: Sequence[str], joiner: str = ": ") -> str:
    """The one line for a field a format does not have: its name (masked if it looks like a
    key), the closest known one ("did you mean"), and the known ones."""
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"{where}{joiner}{field_name(key)}: unknown field; {hint}known: {', '.join(known)}"


def field_name(name: str, limit: int = 60) -> str:
    """A field name or path the input chose, safe on one terminal line: masked if it looks like
    a key, control characters escaped (a newline or an ANSI escape would forge lines), cut."""
    from judgeaudit.credentials import scrub

    shown = scrub(name)
    if not shown.isprintable():
        shown = shown.encode("unicode_escape").decode("ascii")
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def shown_name(text: str) -> str:
    """A name or id the user typed, quoted as ``repr`` does, masked if it looks like a key and
    cut to 40 characters (a run id in a message stays one readable line)."""
    from judgeaudit.credentials import scrub

    text = scrub(text)
    return repr(text if len(text) <= 40 else text[:37] + "...")


def bin_edges(
    bins: Any, labels: Any, where: str, error: ErrorType = ValidationError
) -> tuple[list[float], list[str] | None]:
    """Gap bin edges (finite, strictly increasing, at least two) and labels (one per bucket).

    Checked before a run starts because ``pd.cut`` only refuses them after the whole run.
    """
    if not isinstance(bins, list) or len(bins) < 2:
        raise error(f"{where}.bins: give at least two edges, e.g. [-0.01, 0.2, 0.5, 1.0, 5.0]")
    edges = [number(b, f"{where}.bins[{i}]", -1e12, 1e12, error) for i, b in enumerate(bins)]
    for i in range(1, len(edges)):
        if edges[i] == edges[i - 1]:
            raise error(f"{where}.bins[{i}]: edge {edges[i]:g} appears twice; edges must differ")
        if edges[i] < edges[i - 1]:
            raise error(
                f"{where}.bins[{i}]: {edges[i]:g} comes after {edges[i - 1]:g}; "
                "list the edges in increasing order"
            )
    if labels is None:
        return edges, None
    if not isinstance(labels, list):
        raise error(f"{where}.labels: must be a list of strings")
    names = [string(label, f"{where}.labels[{i}]", error) for i, label in enumerate(labels)]
    if len(names) != len(edges) - 1:
        raise error(
            f"{where}.labels: {len(names)} labels for {len(edges) - 1} buckets; "
            f"give one label per bucket ({len(edges)} edges make {len(edges) - 1})"
        )
    duplicates(names, f"{where}.labels", error)
    return edges, names


def duplicates(items: Iterable[Any], where: str, error: ErrorType = ValidationError) -> None:
    """Refuse the first item that appears twice, naming its index."""
    seen: set[Any] = set()
    for index, item in enumerate(items):
        if item in seen:
            raise error(f"{where}[{index}]: {short(item)} appears twice; list each once")
        seen.add(item)


#: how a refusal to replace a user's file ends on the command line (the app words its own control)
FORCE_HINT = "pass --force to replace it"


def unless_forced(force: bool, refusal: str | None, error: ErrorType = ValidationError) -> None:
    """The one ``--force`` guard of a command that would replace a user's file: ``refusal``
    (naming the file and what it holds; None: nothing to lose) is refused unless ``force``, the
    line ending in how to replace it anyway."""
    if refusal is not None and not force:
        raise error(f"{refusal}; {FORCE_HINT}")

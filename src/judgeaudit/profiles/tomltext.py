"""Line-level edits of a TOML file that leave every byte judgeaudit does not own alone.

A switch edits three things in Codex's ``config.toml``: root keys (``model``, ``model_provider``)
and one ``[model_providers.<id>]`` table. tomlkit re-spaces what it touches (a blank line per
change, a new key under the comment that heads the next table, LF lines in a CRLF file), so
edits here are made on the text: a scanner splits it into statements (multi-line strings and
arrays included), a root key is replaced or added as one whole line right after the last root
key (never under a comment block), a table goes after the last ``[model_providers.*]`` table's
last key (or at the end), and what was inserted before it (its blank line) is recorded so a
removal is the exact inverse. The caller checks the result with a real parser.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
BOM = "\ufeff"


@dataclass(frozen=True)
class Stmt:
    kind: Literal["header", "kv", "comment", "blank"]
    start: int  # character offset of the first line
    end: int  # offset just past the last line's line end
    parts: tuple[str, ...] = ()  # header: the table name; kv: the dotted key


def _key_parts(text: str) -> tuple[tuple[str, ...], int]:
    """Parse a dotted key at the start of ``text``: its parts and where it ends."""
    parts: list[str] = []
    i = 0
    while True:
        while i < len(text) and text[i] in " \t":
            i += 1
        if i < len(text) and text[i] == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            try:
                parts.append(json.loads(text[i : j + 1]))
            except ValueError:
                parts.append(text[i + 1 : j])
            i = j + 1
        elif i < len(text) and text[i] == "'":
            j = text.find("'", i + 1)
            j = len(text) if j < 0 else j
            parts.append(text[i + 1 : j])
            i = j + 1
        else:
            match = BARE_KEY.match(text, i)
            if not match:
                return tuple(parts), i
            parts.append(match.group())
            i = match.end()
        while i < len(text) and text[i] in " \t":
            i += 1
        if i < len(text) and text[i] == ".":
            i += 1
            continue
        return tuple(parts), i


def _value_end(text: str, i: int) -> int:
    """Offset just past the line end that finishes the value starting at ``text[i]``."""
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if text.startswith('"""', i) or text.startswith("'''", i):
            quote = text[i : i + 3]
            j = i + 3
            while j < n:
                if quote == '"""' and text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(quote, j):
                    while text.startswith(quote[0], j + 3):  # up to two quotes end the value
                        j += 1
                    break
                j += 1
            i = j + 3
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if c == '"' and text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "#":
            nl = text.find("\n", i)
            if nl < 0:
                return n
            if depth == 0:
                return nl + 1
            i = nl + 1
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "\n" and depth <= 0:
            return i + 1
        i += 1
    return n


def scan(text: str) -> list[Stmt]:
    """Statements in file order; one per line except multi-line values."""
    out: list[Stmt] = []
    i = len(BOM) if text.startswith(BOM) else 0
    n = len(text)
    while i < n:
        nl = text.find("\n", i)
        line_end = n if nl < 0 else nl + 1
        stripped = text[i:line_end].strip()
        if not stripped:
            out.append(Stmt("blank", i, line_end))
            i = line_end
        elif stripped.startswith("#"):
            out.append(Stmt("comment", i, line_end))
            i = line_end
        elif stripped.startswith("["):
            lead = text.index("[", i)
            array = text.startswith("[[", lead)
            parts, _ = _key_parts(text[lead + (2 if array else 1) : line_end])
            out.append(Stmt("header", i, line_end, parts))
            i = line_end
        else:
            parts, at = _key_parts(text[i:line_end])
            eq = text.find("=", i + at, line_end)
            end = _value_end(text, eq + 1) if eq >= 0 else line_end
            out.append(Stmt("kv", i, end, parts))
            i = end
    return out


def newline_of(text: str) -> str:
    """The file's line end: CRLF when its first line ends so."""
    nl = text.find("\n")
    return "\r\n" if nl > 0 and text[nl - 1] == "\r" else "\n"


def render_value(value: Any) -> str:
    """A plain value (str, int, bool, list, dict) as TOML; a dict as an inline table."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(render_value(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{render_key(k)} = {render_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def render_key(key: str) -> str:
    return key if BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


class TomlText:
    """A TOML file's text with the few edits a switch makes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.nl = newline_of(text)

    def _stmts(self) -> list[Stmt]:
        return scan(self.text)

    def root_key(self, key: str) -> Stmt | None:
        for stmt in self._stmts():
            if stmt.kind == "header":
                return None
            if stmt.kind == "kv" and stmt.parts == (key,):
                return stmt
        return None

    def line_of(self, stmt: Stmt) -> str:
        """A statement's text without its line end (CRLF folded to LF inside)."""
        return self.text[stmt.start : stmt.end].replace("\r\n", "\n").rstrip("\n")

    def _splice(self, start: int, end: int, new: str) -> None:
        self.text = self.text[:start] + new + self.text[end:]

    def _lines(self, raw: str) -> str:
        return "".join(line + self.nl for line in raw.split("\n"))

    def set_root(self, key: str, line: str) -> None:
        """Replace the root ``key`` statement with ``line``, or add it after the last root key
        (at the top, after a leading comment block and its blank line, when there is none)."""
        stmts = self._stmts()
        found = self.root_key(key)
        if found is not None:
            keep_end = found.end if self.text[found.start : found.end].endswith("\n") else None
            new = self._lines(line) if keep_end else line
            self._splice(found.start, found.end, new)
            return
        at = len(BOM) if self.text.startswith(BOM) else 0
        roots = []
        for stmt in stmts:
            if stmt.kind == "header":
                break
            if stmt.kind == "kv":
                roots.append(stmt)
        if roots:
            at = roots[-1].end
        else:
            lead = 0
            while lead < len(stmts) and stmts[lead].kind == "comment":
                lead += 1
            if lead and lead < len(stmts) and stmts[lead].kind == "blank":
                at = stmts[lead].end  # a file header: the keys go below it
        if at == len(self.text) and self.text and not self.text.endswith("\n"):
            self._splice(at, at, self.nl + line)  # keep "no line end at the end"
        else:
            self._splice(at, at, self._lines(line))

    def remove_root(self, key: str) -> None:
        found = self.root_key(key)
        if found is None:
            return
        start = found.start
        if not self.text[found.start : found.end].endswith("\n") and start > 0:
            start -= len(self.nl) if self.text[:start].endswith(self.nl) else 1
        self._splice(start, found.end, "")

    def block(self, parts: tuple[str, ...]) -> tuple[int, int] | None:
        """Start of the ``[parts]`` header and the end of its last key (comments and blank
        lines after it head the next table and are not part of it)."""
        stmts = self._stmts()
        for index, stmt in enumerate(stmts):
            if stmt.kind == "header" and stmt.parts == parts:
                end = stmt.end
                for later in stmts[index + 1 :]:
                    if later.kind == "header":
                        break
                    if later.kind == "kv":
                        end = later.end
                return stmt.start, end
        return None

    def _after_tables(self, prefix: tuple[str, ...]) -> int:
        """Where a new table under ``prefix`` goes: after the last such table, or the end."""
        at = len(self.text)
        for stmt in self._stmts():
            if stmt.kind == "header" and stmt.parts[: len(prefix)] == prefix:
                found = self.block(stmt.parts)
                if found:
                    at = found[1]
        return at

    def table_text(self, parts: tuple[str, ...], body: dict[str, Any]) -> str:
        header = "[" + ".".join(render_key(p) for p in parts) + "]"
        lines = [header] + [f"{render_key(k)} = {render_value(v)}" for k, v in body.items()]
        return self._lines("\n".join(lines))

    def set_table(self, parts: tuple[str, ...], body: dict[str, Any]) -> str | None:
        """Replace ``[parts]`` in place, or add it; returns what was put before a new one."""
        new = self.table_text(parts, body)
        found = self.block(parts)
        if found is not None:
            start, end = found
            if not self.text[start:end].endswith("\n"):
                new = new.removesuffix(self.nl)
            self._splice(start, end, new)
            return None
        at = self._after_tables(parts[:-1])
        before = self.text[:at]
        sep = ""
        if before and not before.endswith("\n"):
            sep += self.nl
        if before.strip(BOM) and not (before + sep).endswith(self.nl * 2):
            sep += self.nl  # one blank line before the header
        self._splice(at, at, sep + new)
        return sep

    def remove_table(self, parts: tuple[str, ...], sep: str | None) -> None:
        """Remove ``[parts]`` and, when it is there, the ``sep`` put before it."""
        found = self.block(parts)
        if found is None:
            return
        start, end = found
        if sep is not None and sep and self.text[:start].endswith(sep):
            start -= len(sep)
        elif sep is None and self.text[:start].endswith(self.nl * 2):
            start -= len(self.nl)  # no record (an older ledger): its one blank line
        self._splice(start, end, "")

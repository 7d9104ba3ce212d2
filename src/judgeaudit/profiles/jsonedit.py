"""Edit JSON text in place: only the members that change are touched, every other byte stays.

A settings file keeps its indentation (2, 4, tabs), key order, final newline, compact style and
the exact text of every untouched value (``1e400`` stays ``1e400``), so a diff shows only what
changed. ``NaN``/``Infinity`` are refused: they are not JSON and Claude Code would ignore the
whole file. So is a key twice in one object: which one counts depends on the reader, and the
first one's value (a token) would escape the masking of a diff that reads the last.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from judgeaudit.safeio import json_problem

WS = " \t\n\r"
NUMBER_RE = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")


class JsonEditError(ValueError):
    """Text that is not JSON we can edit; ``line``/``col`` point at the problem (1-based)."""

    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.line, self.col = line, col


@dataclass
class Node:
    start: int
    end: int
    kind: str  # object | array | string | number | literal
    close: int = -1  # objects: offset of the closing brace
    members: list[Member] = field(default_factory=list)


@dataclass
class Member:
    key: str
    lead: int  # just after the preceding '{' or ','
    key_start: int
    key_end: int
    value: Node


def _where(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def fail(self, message: str, pos: int | None = None) -> JsonEditError:
        line, col = _where(self.text, self.pos if pos is None else pos)
        return JsonEditError(message, line, col)

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in WS:
            self.pos += 1

    def value(self) -> Node:
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of text")
        char, start = self.text[self.pos], self.pos
        if char == "{":
            return self.obj()
        if char == "[":
            self.pos += 1
            self.skip()
            if self.text.startswith("]", self.pos):
                self.pos += 1
                return Node(start, self.pos, "array")
            while True:
                self.value()
                self.skip()
                if self.text.startswith(",", self.pos):
                    self.pos += 1
                elif self.text.startswith("]", self.pos):
                    self.pos += 1
                    return Node(start, self.pos, "array")
                else:
                    raise self.fail("expected ',' or ']'")
        if char == '"':
            self.string()
            return Node(start, self.pos, "string")
        for word in ("true", "false", "null"):
            if self.text.startswith(word, self.pos):
                self.pos += len(word)
                return Node(start, self.pos, "literal")
        for word in ("NaN", "Infinity", "-Infinity"):
            if self.text.startswith(word, self.pos):
                raise self.fail(f"{word} is not valid JSON (Claude Code would ignore the file)")
        match = NUMBER_RE.match(self.text, self.pos)
        if match and match.end() > start:
            self.pos = match.end()
            return Node(start, self.pos, "number")
        raise self.fail("expected a JSON value")

    def string(self) -> str:
        start = self.pos
        self.pos += 1
        while True:
            end = self.text.find('"', self.pos)
            if end < 0:
                raise self.fail("unterminated string", start)
            backslashes = 0
            while self.text[end - 1 - backslashes] == "\\":
                backslashes += 1
            self.pos = end + 1
            if backslashes % 2 == 0:
                break
        try:
            value: str = json.loads(self.text[start : self.pos])
        except json.JSONDecodeError as exc:
            raise self.fail(f"invalid string ({json_problem(exc)})", start) from None
        return value

    def obj(self) -> Node:
        node = Node(self.pos, -1, "object")
        self.pos += 1
        lead = self.pos
        self.skip()
        if self.text.startswith("}", self.pos):
            node.close = self.pos
            self.pos += 1
            node.end = self.pos
            return node
        seen: dict[str, int] = {}
        while True:
            self.skip()
            if not self.text.startswith('"', self.pos):
                raise self.fail("expected a quoted key")
            key_start = self.pos
            key = self.string()
            key_end = self.pos
            if key in seen:  # readers disagree on which one counts; a diff would mask the other
                first = _where(self.text, seen[key])[0]
                raise self.fail(
                    f"the key {json.dumps(key)} appears twice in one object (first on line "
                    f"{first}); Claude Code reads only the last: keep one",
                    key_start,
                )
            seen[key] = key_start
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.fail("expected ':'")
            self.pos += 1
            value = self.value()
            node.members.append(Member(key, lead, key_start, key_end, value))
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                lead = self.pos
            elif self.text.startswith("}", self.pos):
                node.close = self.pos
                self.pos += 1
                node.end = self.pos
                return node
            else:
                raise self.fail("expected ',' or '}'")


BOM = "\ufeff"


def parse_tree(text: str) -> Node:
    parser = _Parser(text)
    if text.startswith(BOM):  # Claude Code reads a settings file with a BOM; so do we, and keep it
        parser.pos = 1
    root = parser.value()
    parser.skip()
    if parser.pos != len(text):
        raise parser.fail("extra data after the JSON value")
    return root


class JsonDoc:
    """A JSON object document edited by dotted paths (``("env", "ANTHROPIC_MODEL")``)."""

    def __init__(self, text: str) -> None:
        bom = BOM if text.startswith(BOM) else ""
        self.text = text if text[len(bom) :].strip(WS) else bom + "{}\n"
        self.root = parse_tree(self.text)
        if self.root.kind != "object":
            raise JsonEditError("the top level must be a JSON object", 1, 1)

    def _reparse(self) -> None:
        self.root = parse_tree(self.text)

    def data(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.text.removeprefix(BOM))
        return value

    def _member(self, path: tuple[str, ...]) -> tuple[Node, int] | None:
        """The object holding the last path element and that member's index (last duplicate)."""
        node = self.root
        for depth, key in enumerate(path):
            if node.kind != "object":
                return None
            found = [i for i, m in enumerate(node.members) if m.key == key]
            if not found:
                return None
            if depth == len(path) - 1:
                return node, found[-1]
            node = node.members[found[-1]].value
        return None

    def node(self, path: tuple[str, ...]) -> Node | None:
        hit = self._member(path)
        return hit[0].members[hit[1]].value if hit else None

    def raw(self, path: tuple[str, ...]) -> str | None:
        value = self.node(path)
        return None if value is None else self.text[value.start : value.end]

    def index(self, path: tuple[str, ...]) -> int | None:
        hit = self._member(path)
        return hit[1] if hit else None

    def _splice(self, start: int, end: int, new: str) -> None:
        self.text = self.text[:start] + new + self.text[end:]
        self._reparse()

    def _unit(self) -> str | None:
        """The indentation unit of the file, or None when it is written compactly (an empty
        top-level object gets two spaces, the common style of settings files)."""
        if not self.root.members:
            return "  "
        lead = self.text[self.root.members[0].lead : self.root.members[0].key_start]
        return lead[lead.rfind("\n") + 1 :] if "\n" in lead else None

    def _sep(self) -> str:
        stack = [self.root]
        while stack:
            node = stack.pop()
            for member in node.members:
                return self.text[member.key_end : member.value.start]
        return ": "

    def set(self, path: tuple[str, ...], value_text: str, index: int | None = None) -> None:
        """Replace the value at ``path``, or insert it (at ``index`` of its object if given)."""
        existing = self.node(path)
        if existing is not None:
            self._splice(existing.start, existing.end, value_text)
            return
        parent = self.root if len(path) == 1 else self.node(path[:-1])
        if parent is None or parent.kind != "object":
            raise KeyError(".".join(path[:-1]))
        key = json.dumps(path[-1], ensure_ascii=False)
        members = parent.members
        if not members:
            unit = self._unit()
            sep = self._sep()
            if unit is None:
                inner = f"{key}{sep}{value_text}"
            else:
                depth = len(path) - 1
                inner = f"\n{unit * (depth + 1)}{key}{sep}{value_text}\n{unit * depth}"
            self._splice(parent.start + 1, parent.close, inner)
            return
        if index is not None and index < len(members):
            # Insert before member ``index``, at its key: the whitespace in front of the first
            # member stays in front, and the new member is followed by the object's own
            # separator, so deleting it again restores the text byte for byte.
            at = members[index]
            sep = self.text[at.key_end : at.value.start]
            self._splice(
                at.key_start, at.key_start, f"{key}{sep}{value_text},{self._between(parent)}"
            )
            return
        last = members[-1]
        lead = self.text[last.lead : last.key_start]
        if len(members) == 1 and "\n" not in lead:
            lead = " "
        sep = self.text[last.key_end : last.value.start]
        self._splice(last.value.end, last.value.end, f",{lead}{key}{sep}{value_text}")

    def _between(self, parent: Node) -> str:
        """The whitespace this object puts between a comma and the next member."""
        members = parent.members
        if len(members) > 1:
            return self.text[members[1].lead : members[1].key_start]
        lead = self.text[members[0].lead : members[0].key_start]
        return lead if "\n" in lead else " "

    def delete(self, path: tuple[str, ...]) -> None:
        hit = self._member(path)
        if hit is None:
            return
        parent, i = hit
        members = parent.members
        if len(members) == 1:
            self._splice(parent.start + 1, parent.close, "")
        elif i < len(members) - 1:
            # From this key to the next one: the whitespace in front of this member is kept.
            self._splice(members[i].key_start, members[i + 1].key_start, "")
        else:
            self._splice(members[i - 1].value.end, members[i].value.end, "")


def dump_value(value: Any) -> str:
    """A new value's text: strings and flat values only (what judgeaudit writes)."""
    return json.dumps(value, ensure_ascii=False)

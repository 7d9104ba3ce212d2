"""Claude Code's ``ANTHROPIC_CUSTOM_HEADERS`` (``Name: value``, one a line): which lines carry a
credential, and the one rule for taking only those out of the value while a profile is switched
in and putting them back. It works on the value's JSON text, so every line that stays, and the
whole value given back, keeps its bytes (escapes, ``\\r\\n`` separators, a last newline or none).

Lines are split as Claude Code splits them (on ``\\n`` or ``\\r\\n``; the name is what comes
before the first colon, trimmed). A line is a credential by ``redact.is_credential_header``,
read that way and, to be safe, also as the lines any other line break in it would make."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from judgeaudit.redact import is_credential_header, scrub_keylike

#: One piece of a JSON string's text: an escape, or a run of plain characters.
_PIECE_RE = re.compile(r"\\u[0-9a-fA-F]{4}|\\.|[^\\]+", re.S)
_NEWLINE = ("\\n", "\\u000a", "\\u000A")
_RETURN = ("\\r", "\\u000d", "\\u000D")


@dataclass(frozen=True)
class Line:
    """One header line of the value: its JSON text and the separator after it (JSON text too,
    empty for the last line)."""

    raw: str
    sep: str

    @property
    def text(self) -> str:
        decoded: str = json.loads(f'"{self.raw}"')
        return decoded


def _header(text: str) -> tuple[str, str] | None:
    """``(name, value)`` as Claude Code reads a line; None when it sends nothing for it."""
    name, colon, value = text.partition(":")
    name, value = name.strip(), value.strip()
    return (name, value) if colon and name and value else None


def line_credential(text: str) -> tuple[str, str] | None:
    """The ``(name, value)`` of a line that carries a credential, else None."""
    header = _header(text)
    if header is not None and is_credential_header(*header):
        return header
    for piece in text.splitlines():  # \u2028, a lone \r...: another reader may split there
        inner = _header(piece)
        if inner is not None and is_credential_header(*inner):
            return header or inner
    return None


def lines(raw: str) -> list[Line] | None:
    """The lines of a value given as JSON text; None when it is not a JSON string."""
    if len(raw) < 2 or not (raw.startswith('"') and raw.endswith('"')):
        return None
    try:
        if not isinstance(json.loads(raw), str):
            return None
    except ValueError:
        return None
    out: list[Line] = []
    current: list[str] = []
    for piece in _PIECE_RE.findall(raw[1:-1]):
        if piece in _NEWLINE:
            sep = piece
            if current and current[-1] in _RETURN:
                sep = current.pop() + sep
            out.append(Line("".join(current), sep))
            current = []
        else:
            current.append(piece)
    out.append(Line("".join(current), ""))
    return out


def credential_headers(value: object) -> list[tuple[str, str]]:
    """The ``(name, value)`` headers of a (decoded) value that carry a credential: the name says
    so, or a word of the value has a key's shape. ``anthropic-beta: ...`` (beta names with
    dates included) is none and stays put."""
    if not isinstance(value, str):
        return []
    found = [line_credential(text) for text in re.split(r"\r?\n", value)]
    return [header for header in found if header is not None]


def _join(kept: list[Line]) -> str:
    return '"' + "".join(line.raw + line.sep for line in kept) + '"'


def leave(raw: str) -> str | None:
    """The JSON text to leave live: the value's lines without the credential ones, each as it
    was (None: nothing but credentials, the value goes whole). A value without a credential
    line is returned as it is. The last kept line loses its separator when the value had no
    last newline, so the value keeps ending as it did."""
    parsed = lines(raw)
    if parsed is None:
        return raw
    kept = [line for line in parsed if line_credential(line.text) is None]
    if len(kept) == len(parsed):
        return raw
    if not any(_header(line.text) for line in kept):
        return None  # only blank lines or lines Claude Code ignores would be left
    if parsed[-1].sep == "" and kept[-1].sep:
        kept[-1] = Line(kept[-1].raw, "")
    return _join(kept)


def without_credentials(value: object) -> str:
    """What a layer above the one holding ``value`` (a decoded value: exec's ``--settings``, a
    project binding) sets so Claude Code sends the same headers less the credential lines:
    the other lines as they were, or ``""`` (unset to Claude Code) when none is left or
    ``value`` is not a string."""
    if not isinstance(value, str):
        return ""
    left = leave(json.dumps(value, ensure_ascii=False))
    kept: str = json.loads(left) if left is not None else ""
    return kept


def rejoin(original: str, now: str | None) -> str:
    """``original`` (JSON text) when ``now`` is what :func:`leave` left of it; else the user's
    edit ``now`` with the credential lines taken out of ``original`` put in front of it, in
    their order (one the edit already holds is not added twice). ``now`` None: the user removed
    the value while switched, so the credential lines come back alone."""
    if now == leave(original):
        return original
    taken = [line for line in lines(original) or [] if line_credential(line.text) is not None]
    edited = lines(now) if now is not None else None
    if now is not None and edited is None:  # no longer a string: theirs as it is
        return now
    have = {line.text for line in edited or []}
    back = [line for line in taken if line.text not in have]
    if not back:
        return now if now is not None else original
    sep = next((line.sep for line in lines(original) or [] if line.sep), "\\n")
    back = [Line(line.raw, line.sep or sep) for line in back]
    if edited is None or edited == [Line("", "")]:
        back[-1] = Line(back[-1].raw, "")
        return _join(back)
    return _join([*back, *edited])


def credential_raws(raw: str) -> set[str]:
    """The JSON text of each credential line of a value (JSON text), for masking."""
    return {line.raw for line in lines(raw) or [] if line_credential(line.text) is not None}


def mask_credentials(raw: str, mark: Callable[[str], str]) -> tuple[str, dict[str, str]]:
    """``raw`` (JSON text) with each credential line's value replaced by ``mark(line's JSON
    text)`` (the whole line when its name has a key's shape), the other lines and every
    separator as they were; and, per masked line (JSON text), the line it stands for."""
    parsed = lines(raw)
    if parsed is None:
        return raw, {}
    out: list[Line] = []
    originals: dict[str, str] = {}
    for line in parsed:
        header = line_credential(line.text)
        if header is None:
            out.append(line)
            continue
        name = header[0]
        text = mark(line.raw) if scrub_keylike(name) != name else f"{name}: {mark(line.raw)}"
        masked = json.dumps(text, ensure_ascii=False)[1:-1]
        originals[masked] = line.raw
        out.append(Line(masked, line.sep))
    return _join(out), originals


def unmask(raw: str, originals: Mapping[str, str]) -> str:
    """``raw`` (JSON text) with each line :func:`mask_credentials` masked put back as it was."""
    parsed = lines(raw)
    if parsed is None:
        return raw
    return _join([Line(originals.get(line.raw, line.raw), line.sep) for line in parsed])


def said(raw: str) -> str:
    """The move in a few words for the preview: the credential headers' names (key-shaped words
    masked), never their values."""
    names = [
        scrub_keylike(header[0])
        for line in lines(raw) or []
        if (header := line_credential(line.text)) is not None
    ]
    return ", ".join(dict.fromkeys(names))

"""Text from users' files and models' replies (a judge's raw output, a logged conversation, an
id, a settings value in a switch's diff) made safe to print on a terminal: one owner for both
front ends."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping

from judgeaudit import unseen

#: C0 controls, DEL and the C1 controls (8-bit CSI among them) shown as one visible cell each, so
#: an escape sequence in a judge's reply never reaches the terminal as a command; a tab is a
#: space (it pushed the app's column borders) and a line break stays a line break.
_CONTROL_CELLS = {c: "�" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))} | {
    ord("\t"): " ",
    ord("\n"): "\n",
}


def escape(code: int) -> str:
    """A character written as its escape (``\\u202e``, ``\\U000e0001``), so the user sees which
    one and can find it in the file."""
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


#: How many characters a :class:`Table` keeps the answer for (a text's alphabet is far fewer;
#: past it, each is worked out again).
KEPT_AT_MOST = 16_384


class Table(dict[int, str]):
    """A ``str.translate`` table: its own entries, and every other character that prints as
    nothing or moves the text (Trojan Source: the bidi controls; zero-width ones; the BOM; the
    line and paragraph separators: :func:`judgeaudit.unseen.hides_anywhere`, the one
    description ids use too) written as ``hidden(code)``, worked out the first time it is met
    and kept. The joiners and variation selectors are left alone: emoji need them."""

    def __init__(self, entries: Mapping[int, str], hidden: Callable[[int], str]) -> None:
        super().__init__(entries)
        self.hidden = hidden

    def __missing__(self, code: int) -> str:
        value = self.hidden(code) if unseen.hides_anywhere(code) else chr(code)
        if len(self) < KEPT_AT_MOST:  # text of every code point cannot grow it without bound
            self[code] = value
        return value

    def __or__(self, other: Mapping[int, str]) -> Table:  # type: ignore[override]
        """More entries, the same rule for the rest (a plain dict would lose it)."""
        return Table({**self, **other}, self.hidden)


#: For the app's styled text: a control or invisible character is one visible cell (its spans
#: must keep their places).
CONTROLS = Table(_CONTROL_CELLS, lambda _code: "�")
#: For plain text: an invisible character is written as its :func:`escape`.
ESCAPED = Table(_CONTROL_CELLS, escape)
#: :data:`ESCAPED` for a file's own text (a diff, a backup): its tabs stay tabs.
FILE_ESCAPED = ESCAPED | {ord("\t"): "\t"}
#: Only the invisible characters escaped (a stream whose controls are its own: they stay).
INVISIBLE_ESCAPED = Table({c: chr(c) for c in _CONTROL_CELLS}, escape)


def printable(text: str, *, layout: bool = False) -> str:
    """``text`` as the CLI prints it: a control character one visible cell, an invisible one
    (:class:`Table`) its escape (``\\u202e``); with ``layout`` (a file's own text) its tabs and
    CRLF line ends stay as they are (harmless on a terminal)."""
    text = unseen.stray_tags(text, escape)
    if layout:
        return "\r\n".join(part.translate(FILE_ESCAPED) for part in text.split("\r\n"))
    return text.translate(ESCAPED)


def visible(text: str) -> str:
    """``text`` with only the invisible characters escaped: for a stream whose control
    characters are its own (the CLI's stderr: a progress line's carriage return)."""
    return unseen.stray_tags(text, escape).translate(INVISIBLE_ESCAPED)


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes: a wide or full-width character (CJK, most
    emoji) two, a combining mark or format character (a joiner, a variation selector) none,
    any other one. ``len`` counted a CJK model id as half its width: the columns after it
    shifted."""
    return sum(
        0
        if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf")
        else 2
        if unicodedata.east_asian_width(c) in ("W", "F")
        else 1
        for c in text
    )


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal cells (:func:`cells`), as ``:<width``
    pads to characters."""
    return text + " " * max(0, width - cells(text))

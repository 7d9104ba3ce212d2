"""Text from users' files and models' replies (a judge's raw output, a logged conversation, an
id, a settings value in a switch's diff) made safe to print on a terminal: one owner for both
front ends."""

from __future__ import annotations

#: Characters a terminal draws as nothing, or lets reorder what follows (Trojan Source): the
#: bidi controls (ALM, LRM, RLM, the embeddings, overrides and isolates), the zero-width space,
#: the word joiner and invisible operators, the BOM and the line and paragraph separators. A
#: value holding one printed as another value. The joiners and variation selectors are left
#: alone: emoji need them.
INVISIBLE = (
    0x061C, 0x180E, 0x200B, 0x200E, 0x200F, *range(0x202A, 0x202F), 0x2028, 0x2029,
    *range(0x2060, 0x2065), *range(0x2066, 0x206A), 0xFEFF,
)  # fmt: skip

#: C0 controls, DEL and the C1 controls (8-bit CSI among them) shown as one visible cell each, so
#: an escape sequence in a judge's reply never reaches the terminal as a command; a tab is a
#: space (it pushed the app's column borders) and a line break stays a line break. The
#: :data:`INVISIBLE` characters are one visible cell too (the app's styled text, whose spans must
#: keep their places).
CONTROLS = {c: "�" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0), *INVISIBLE)} | {
    ord("\t"): " ",
    ord("\n"): "\n",
}

#: :data:`CONTROLS` for plain text: an :data:`INVISIBLE` character is written as its escape
#: (``\u202e``, as JSON writes it), so the user sees which one and can find it in the file.
INVISIBLE_ESCAPED = {c: f"\\u{c:04x}" for c in INVISIBLE}
ESCAPED = CONTROLS | INVISIBLE_ESCAPED
#: :data:`ESCAPED` for a file's own text (a diff, a backup): its tabs stay tabs.
FILE_ESCAPED = ESCAPED | {ord("\t"): "\t"}


def printable(text: str, *, layout: bool = False) -> str:
    """``text`` as the CLI prints it: a control character one visible cell, an invisible one
    (:data:`INVISIBLE`) its escape (``\\u202e``); with ``layout`` (a file's own text) its tabs
    and CRLF line ends stay as they are (harmless on a terminal)."""
    if layout:
        return "\r\n".join(part.translate(FILE_ESCAPED) for part in text.split("\r\n"))
    return text.translate(ESCAPED)


def visible(text: str) -> str:
    """``text`` with only the :data:`INVISIBLE` characters escaped: for a stream whose control
    characters are its own (the CLI's stderr: a progress line's carriage return)."""
    return text.translate(INVISIBLE_ESCAPED)

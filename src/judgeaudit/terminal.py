"""Text from users' files and models' replies (a judge's raw output, a logged conversation, an
id) made safe to print on a terminal: one owner for both front ends."""

from __future__ import annotations

#: C0 controls, DEL and the C1 controls (8-bit CSI among them) shown as one visible cell each, so
#: an escape sequence in a judge's reply never reaches the terminal as a command; a tab is a
#: space (it pushed the app's column borders) and a line break stays a line break.
CONTROLS = {c: "�" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))} | {
    ord("\t"): " ",
    ord("\n"): "\n",
}


def printable(text: str) -> str:
    """``text`` with :data:`CONTROLS` replaced, character for character (the length, and so
    any styling spans over it, stays the same)."""
    return text.translate(CONTROLS)

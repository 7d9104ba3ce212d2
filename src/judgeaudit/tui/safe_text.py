"""Rich Text from users' files and models' replies with every control character shown as one
visible cell, styles kept: the one way the app's screens draw such text
(:mod:`judgeaudit.terminal` owns which characters and what replaces them)."""

from __future__ import annotations

from rich.text import Text

from judgeaudit import unseen
from judgeaudit.terminal import CONTROLS, Table


def translated(text: Text, table: Table, *, one_row: bool = False) -> Text:
    """``text`` with ``table``'s characters replaced one for one (spans stay in place), a tag
    outside a flag as well; ``one_row`` for a log line (no wrap, no line end)."""
    plain = text.plain
    clean = unseen.stray_tags(plain, table.hidden).translate(table)
    if clean == plain:
        return text
    if one_row:
        return Text(clean, style=text.style, spans=text.spans, end="", no_wrap=True)
    return Text(clean, style=text.style, spans=text.spans, end=text.end)


def safe(text: Text) -> Text:
    """``text`` as a screen shows it: an escape sequence in a logged conversation or a judge's
    reply drew in colour, a tab pushed a column's border."""
    return translated(text, CONTROLS)

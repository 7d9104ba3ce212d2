"""A line of text redrawn several times a second (the Run screen's title and figures) without
laying out the whole screen each time.

``Static.update`` asks for a layout of the screen on every call; while a run streamed, the
title, the figures and the rate line did that five times a second and the layouts were most of
the app's CPU (key-to-paint during a run 1.77x idle; issue 23, goal 2). Here an unchanged text is
not redrawn, and a changed one is laid out again only when it takes a different number of lines
(or the width changed): otherwise only the widget itself is repainted.

A line of figures is given as items (`show_items`) and packed at the widget's width, a line
break only between two items: wrapped at any space, the Run screen's figures split a value at
120 columns (`limits: sim` / `31/32`)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.widgets import Static

SEP = " · "


def pack(items: Sequence[str], width: int, sep: str = SEP) -> str:
    """The items joined by ``sep``, a new line started before an item that would not fit whole;
    an item wider than the line is left to the wrap (nothing is dropped)."""
    lines: list[str] = []
    for item in items:
        if lines and cell_len(lines[-1] + sep + item) <= width:
            lines[-1] += sep + item
        else:
            lines.append(item)
    return "\n".join(lines)


class LiveText(Static):
    def __init__(
        self, content: str | Text = "", *, id: str | None = None, classes: str | None = None
    ) -> None:
        # plain text: run ids and endpoint names come from users' specs ("[/i]" crashed a run)
        super().__init__(content, id=id, classes=classes, markup=False)
        self.shown: str | Text = content
        self.measured: tuple[int, int] | None = None  # (width, lines) of the shown text
        self.items: tuple[str, ...] = ()  # what `show_items` packs again when the width changes

    def show_items(self, items: Sequence[str]) -> None:
        """Show figures that are never split inside one: packed at the width, again on a resize."""
        self.items = tuple(items)
        self.paint(pack(self.items, self.content_region.width or self.app.size.width))

    def on_resize(self, _event: events.Resize) -> None:
        if self.items:
            self.show_items(self.items)

    def show(self, content: str | Text) -> None:
        self.items = ()
        self.paint(content)

    def paint(self, content: str | Text) -> None:
        if content == self.shown and self.measured is not None:
            return
        self.shown = content
        self.update(content, layout=False)
        width = self.content_region.width
        lines = self.get_content_height(self.size, self.app.size, width) if width else 0
        if self.measured != (width, lines):
            self.refresh(layout=True)
        self.measured = (width, lines)

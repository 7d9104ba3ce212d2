"""A line of text redrawn several times a second (the Run screen's title and figures) without
laying out the whole screen each time.

``Static.update`` asks for a layout of the screen on every call; while a run streamed, the
title, the figures and the rate line did that five times a second and the layouts were most of
the app's CPU (key-to-paint during a run 1.77x idle; issue 23, goal 2). Here an unchanged text is
not redrawn, and a changed one is laid out again only when it takes a different number of lines
(or the width changed): otherwise only the widget itself is repainted."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class LiveText(Static):
    def __init__(
        self, content: str | Text = "", *, id: str | None = None, classes: str | None = None
    ) -> None:
        # plain text: run ids and endpoint names come from users' specs ("[/i]" crashed a run)
        super().__init__(content, id=id, classes=classes, markup=False)
        self.shown: str | Text = content
        self.measured: tuple[int, int] | None = None  # (width, lines) of the shown text

    def show(self, content: str | Text) -> None:
        if content == self.shown and self.measured is not None:
            return
        self.shown = content
        self.update(content, layout=False)
        width = self.content_region.width
        lines = self.get_content_height(self.size, self.app.size, width) if width else 0
        if self.measured != (width, lines):
            self.refresh(layout=True)
        self.measured = (width, lines)

"""A bounded log that renders only the lines on screen (the Line API), toolong-style.

Textual's RichLog renders every line it is given when it is written and repaints its whole
region on each write; while a run streamed into the judge log that was most of the app's main
thread (issue 23, goal 2: key-to-paint during a run). Here a line is rendered the first time it
is on screen and its strip is cached; adding lines repaints only the rows that show something
else: the new rows at the bottom, or the whole view when it scrolls with the tail.

The view follows the tail while it is at the bottom; scrolled back, it stays on the same lines
while new ones arrive (and lines dropped from the front no longer shift it) until they are
dropped themselves. The horizontal scroll reaches the widest line rendered so far: a line's
width is known only once it is rendered, and measuring every line was what cost."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.events import Resize
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from judgeaudit.terminal import CONTROLS as TERMINAL_CONTROLS
from judgeaudit.tui.safe_text import translated

#: control characters (a judge's raw output may hold any) shown as one visible cell each
#: (:mod:`judgeaudit.terminal`'s), and a line break as ``⏎``: each entry is one row of the
#: width Rich measured and nothing reaches the terminal as a command
CONTROLS = TERMINAL_CONTROLS | {ord("\n"): "⏎"}


class Line(Protocol):
    """What the log shows: a key no other line of the log ever has, and the text, which the log
    reads only when the line is first on screen."""

    @property
    def key(self) -> int: ...

    @property
    def text(self) -> Text: ...


def printable(text: Text) -> Text:
    """The text as one row: control characters replaced cell for cell, styles kept."""
    return translated(text, CONTROLS, one_row=True)


class LazyLog(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    LazyLog {
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
        &:focus { background-tint: $foreground 5%; }
    }
    """

    def __init__(self, kept: int, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.kept = kept
        self.rows: list[Line] = []
        self.follow = True  # at the bottom: new lines scroll the view with them
        self.strips: LRUCache[int, Strip] = LRUCache(1024)  # whole lines, by line key
        self.widest = 0  # the widest line rendered since the lines were last replaced
        self.base: Style | None = None  # the widget's own style (focus tints it)
        self.strips_base: Style | None = None  # the style the cached lines were rendered in
        self.shown_height = 0  # the rows of lines the log last showed (hidden, it has no size)

    # --- what is shown -------------------------------------------------------------------------
    def add_lines(self, new: Sequence[Line], oldest: int = 0) -> None:
        """Append lines; drop those keyed below `oldest` and any beyond `kept` from the front."""
        rows = self.rows
        rows.extend(new)
        drop = 0
        while drop < len(rows) and (rows[drop].key < oldest or len(rows) - drop > self.kept):
            drop += 1
        if drop:
            del rows[:drop]
        if new or drop:
            self.moved(drop, min(len(new), len(rows)))

    def set_lines(self, lines: Sequence[Line]) -> None:
        """Show these lines instead (a new filter, a new run), from the tail."""
        self.rows = list(lines)[-self.kept :]
        self.follow = True
        self.widest = 0
        self.virtual_size = Size(0, len(self.rows))
        self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
        self.refresh()

    def moved(self, dropped: int, added: int) -> None:
        """Scroll with the tail, or keep the same lines in view, and repaint what changed."""
        before = self.scroll_offset.y
        self.count_rows()
        target = self.max_scroll_y if self.follow else max(0, before - dropped)
        self.scroll_to(y=target, animate=False, immediate=True)
        now = self.scroll_offset.y
        if not self.visible:
            self.render_ahead()
            return
        if now != before - dropped:  # the view shows other lines than before
            self.refresh()
            return
        first_new, end = len(self.rows) - added, now + self.scrollable_content_region.height
        if first_new < end:
            self.refresh_lines(first_new, end - first_new)

    def render_ahead(self) -> None:
        """Hidden (`l`), the log renders the lines it would show, as it does when shown: the
        key that shows it again then paints lines already rendered, where it rendered a whole
        view of new lines (about 6 ms while a run streams; issue 23, goal 2). Hidden, it has
        no size: the lines are those its last shown height holds, at the tail if it follows."""
        height = self.shown_height
        top = max(0, len(self.rows) - height) if self.follow else self.scroll_offset.y
        base = self.style_base()
        for row in self.rows[top : top + height]:
            self.line_strip(row, base)

    def count_rows(self) -> None:
        """The scrollable height follows the line count without a layout of the screen, which
        assigning `virtual_size` asks for: a layout each drain was then most of the log's cost.
        A layout would only tell the scrollbar (always shown: `overflow-y: scroll`), so it is
        told directly."""
        size = Size(self.virtual_size.width, len(self.rows))
        if size != self.virtual_size:
            self.set_reactive(Widget.virtual_size, size)
            self.vertical_scrollbar.window_virtual_size = size.height

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.follow = round(new_value) >= self.max_scroll_y

    def on_resize(self, event: Resize) -> None:
        if event.size.height:
            self.shown_height = self.scrollable_content_region.height
        if self.follow:  # a shorter view (the filter field shown) keeps the tail in sight
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.base = None  # read again; the rendered lines stay unless it changed

    def shown_text(self) -> list[str]:
        """The plain text of every line the log holds (what a user can scroll through)."""
        return [printable(row.text).plain for row in self.rows]

    def widen(self) -> None:
        if self.virtual_size.width < self.widest:
            self.virtual_size = Size(self.widest, len(self.rows))

    # --- the Line API --------------------------------------------------------------------------
    def style_base(self) -> Style:
        """The widget's own style, which every line is rendered in."""
        if self.base is None:
            base = self.rich_style
            if base != self.strips_base:  # focus, a theme: not a display toggle or a resize
                self.strips.clear()
            self.base = self.strips_base = base
        return self.base

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.style_base()
        x, index = self.scroll_offset.x, self.scroll_offset.y + y
        if index >= len(self.rows):
            return Strip.blank(width, base)
        return self.line_strip(self.rows[index], base).crop_extend(x, x + width, base)

    def line_strip(self, row: Line, base: Style) -> Strip:
        """The whole line as one strip in the widget's style, rendered once and cached."""
        strip = self.strips.get(row.key)
        if strip is None:
            text, console = printable(row.text), self.app.console
            # the text's own style goes under its spans (Text.render drops it when it has none)
            style = base + console.get_style(text.style) if text.style else base
            strip = Strip(list(text.render(console))).apply_style(style)
            self.strips[row.key] = strip
            if strip.cell_length > self.widest:
                self.widest = strip.cell_length
                self.call_later(self.widen)  # not while the screen is being rendered
        return strip

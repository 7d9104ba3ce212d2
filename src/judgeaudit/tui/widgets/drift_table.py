"""The Runs screen's drift table, which knows the row that failed the gate and says where it is.

A comparison whose gate failed opens the table on that row, so its first rows may be out of
sight, or, scrolled back up, that row under the fold; the change pane's top edge says which
(:func:`deciding_title`). How many rows are out of sight changes whenever the table scrolls,
is resized (the terminal, the status line, the picker) or is hidden for another view, so the
table works it out again on each (computed once, it pointed to rows that were on screen and
stayed over the chart): it posts :class:`DriftTable.Edge`, and the screen writes it on the pane.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import events
from textual.message import Message

from judgeaudit.tui.drift_view import DRIFT_COLUMNS, deciding_row, deciding_title, drift_rows
from judgeaudit.tui.widgets.fit_table import FitTable


class DriftTable(FitTable):
    """Per bucket (and overall, and tie-aware) the change between the compared runs."""

    @dataclass
    class Edge(Message):
        """What the change pane's top edge says of this table now ("" for nothing)."""

        title: str

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(DRIFT_COLUMNS, cursor_type="row", **kwargs)
        self.failed_row: str | None = None  # the row the gate failed on, if it did

    def on_mount(self) -> None:
        self.watch(self, "scroll_y", self.say_edge, init=False)

    def show_comparison(self, result: dict[str, Any] | None) -> None:
        """A comparison's rows, the cursor on the row that failed the gate (on screen at
        80x24), else on the first row (a new table starts at its top); None: no rows."""
        rows = drift_rows(result) if result is not None else []
        self.failed_row = deciding_row(result) if result is not None else None
        self.set_rows(rows, cursor=self.failed_row or (rows[0][0] if rows else None))
        self.say_edge()
        self.call_after_refresh(self.say_edge)  # once laid out: how many rows fit

    def edge(self) -> str:
        """The rows above (the table opened on the failing row) or down to it (scrolled back
        up with the cursor left on it); "" when the cursor is elsewhere or the table hidden."""
        key = self.failed_row
        if key is None or not self.display or self.selected_key() != key:
            return ""
        above = round(self.scroll_offset.y)
        shown = self.scrollable_content_region.height - self.header_height * self.show_header
        below = self.get_row_index(key) + 1 - above - shown  # that row under the fold
        name = str(dict(self.rows_data).get(key, {}).get("bucket", key))
        return deciding_title(name, above, below)

    def say_edge(self, _: float = 0.0) -> None:
        self.post_message(self.Edge(self.edge()))

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.say_edge)  # after FitTable's relayout of the rows

    def on_show(self, event: events.Show) -> None:
        self.call_after_refresh(self.say_edge)

    def on_hide(self, event: events.Hide) -> None:
        self.say_edge()

    def on_data_table_row_highlighted(self, event: FitTable.RowHighlighted) -> None:
        self.say_edge()  # off the failing row, the note has done; back on it, it returns

"""A DataTable that fits its width: low-value columns narrow, then go, before key or badge ones.

Each column says how narrow it may get and in which order it is dropped when even that does not
fit (0: never). The rows are kept as given, so a resize re-lays them out, and the cursor stays on
the same row key across refreshes.

Every table has the habits of the best terminal apps: `/` filters its rows, `s` sorts by the
next column (numbers as numbers) and `S` reverses, Home/End go to the first/last row, `y` copies
the row's key (a pair id, a profile) and `Y` the whole table (tab-separated) to the clipboard.
How the columns narrow and the cells are cut is `cell_fit.py`'s; this module is the widget.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from rich.cells import cell_len
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from judgeaudit.tui.widgets.cell_fit import (
    Cell,
    Col,
    Row,
    fit,
    fit_cell,
    fit_url,
    natural_width,
    plain,
    plan_widths,
    url_floor,
)

# split modules keep their face: the fitting moved to cell_fit.py, still importable from here
__all__ = ["Cell", "Col", "FitTable", "Row", "fit", "fit_url", "plain", "sort_value"]

NUMBER = re.compile(r"^[(+−-]?\d+(?:\.\d+)?")


def sort_value(cell: Cell) -> tuple[int, float, str]:
    """Numbers (a rate, a count, a change) by value, before text; text case-blind."""
    text = plain(cell).strip()
    found = NUMBER.match(text)
    if found:
        number = found.group().lstrip("(+").replace("−", "-")
        return (0, float(number), text)
    return (1, 0.0, text.lower())


class FitTable(DataTable[Cell]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "first_row", "First row", show=False),
        Binding("end", "last_row", "Last row", show=False),
        Binding("slash", "filter", "Filter", show=False),
        Binding("s", "sort", "Sort", show=False),
        Binding("S", "sort_reverse", "Reverse sort", show=False),
        Binding("y", "copy_row", "Copy row", show=False),
        Binding("Y", "copy_table", "Copy table", show=False),
    ]

    class Refiltered(Message):
        """Filter or sort changed: a title counting rows says what is shown (not a 3 s toast)."""

    def __init__(self, cols: Sequence[Col], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cols = list(cols)
        self.rows_data: Sequence[Row] = []
        self.laid_out_for: tuple[Any, ...] | None = None
        self.wanted_cursor: str | None = None
        self.filter_text = ""
        self.sort_key: str | None = None
        self.sort_reverse = False

    # --- what is shown: the rows, filtered and sorted -------------------------------------------
    def shown_rows(self) -> list[Row]:
        rows = list(self.rows_data)
        if self.filter_text:
            needle = self.filter_text.lower()
            rows = [r for r in rows if any(needle in plain(c).lower() for c in r[1].values())]
        if self.sort_key is not None:
            key = self.sort_key
            rows.sort(key=lambda r: sort_value(r[1].get(key, "")), reverse=self.sort_reverse)
        return rows

    def state(self) -> str:
        """What the filter and sort are, for a line under the table or a toast."""
        parts = [f"filter “{self.filter_text}”"] if self.filter_text else []
        if self.sort_key is not None:
            label = next((c.label for c in self.cols if c.key == self.sort_key), self.sort_key)
            parts.append(f"sorted by {label} {'↓' if self.sort_reverse else '↑'}")
        shown = len(self.shown_rows())
        if self.filter_text:
            parts.append(f"{shown} of {len(self.rows_data)} rows")
        return ", ".join(parts)

    def restyle(self) -> None:
        self.laid_out_for = None
        self.relayout()
        if state := self.state():
            self.notify(state, timeout=3)
        self.post_message(self.Refiltered())

    def matching(self, noun: str) -> str:
        """A title's count of ``noun``: `6 pairs`, or while filtered `0 of 6 pairs match 'xyz'`."""
        shown, total, text = len(self.shown_rows()), len(self.rows_data), self.filter_text
        return f"{shown} of {total} {noun} match '{text}'" if text else f"{total} {noun}"

    def action_filter(self) -> None:
        from judgeaudit.tui.widgets.table_prompt import TextPrompt

        def chosen(text: str | None) -> None:
            if text is not None:
                self.filter_text = text
                self.restyle()
                self.focus()

        self.app.push_screen(TextPrompt(self.filter_text), chosen)

    def action_sort(self) -> None:
        keys = [c.key for c in self.cols if c.key in {str(k.value) for k in self.columns}]
        if not keys:
            return
        at = keys.index(self.sort_key) + 1 if self.sort_key in keys else 0
        self.sort_key = keys[at] if at < len(keys) else None
        self.sort_reverse = False
        self.restyle()

    def action_sort_reverse(self) -> None:
        if self.sort_key is None:
            self.action_sort()
        self.sort_reverse = not self.sort_reverse
        self.restyle()

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0, animate=False)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1, animate=False)

    def copy_text(self, key: str, row: Mapping[str, Cell]) -> str:
        """What `y` copies: the row's key (a pair id, a profile's name); screens may override."""
        return key

    def action_copy_row(self) -> None:
        key = self.selected_key()
        row = dict(self.rows_data).get(key) if key is not None else None
        if key is None or row is None:
            return
        text = self.copy_text(key, row)
        self.app.copy_to_clipboard(text)
        self.notify(f"copied {text}", timeout=3)

    def table_text(self) -> str:
        """The table as shown (filtered, sorted, every column), tab-separated with a header."""
        lines = ["\t".join(c.label or c.key for c in self.cols)]
        for _, row in self.shown_rows():
            lines.append("\t".join(plain(row.get(c.key, "")) for c in self.cols))
        return "\n".join(lines) + "\n"

    def action_copy_table(self) -> None:
        self.app.copy_to_clipboard(self.table_text())
        self.notify(f"copied the table ({len(self.shown_rows())} rows, tab-separated)", timeout=3)

    def set_columns(self, cols: Sequence[Col]) -> None:
        """Another set of columns (laid out with the next rows); a sort by a column that is gone
        is dropped (the Pairs list adds its log id column only for imported runs)."""
        self.cols = list(cols)
        if self.sort_key not in {c.key for c in self.cols}:
            self.sort_key, self.sort_reverse = None, False
        self.laid_out_for = None

    def set_rows(self, rows: Sequence[Row], cursor: str | None = None) -> None:
        """Replace the rows; the cursor goes to `cursor`, else stays on the same row key."""
        if cursor is not None:
            self.wanted_cursor = cursor
        self.rows_data = rows
        self.laid_out_for = None
        self.relayout()

    def put_cursor(self, key: str) -> bool:
        if key not in {k for k, _ in self.shown_rows()}:
            return False
        self.wanted_cursor = key
        if self.row_count:
            self.move_cursor(row=self.get_row_index(key), animate=False)
        return True

    def selected_key(self) -> str | None:
        if self.row_count == 0:
            return None
        return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        # the cursor as it is now (a highlight queued during a relayout may be stale)
        self.wanted_cursor = self.selected_key() or self.wanted_cursor

    def on_resize(self, event: events.Resize) -> None:
        self.relayout()

    def available_width(self) -> int:
        width = self.size.width
        if len(self.shown_rows()) + 1 > self.size.height:
            width -= self.styles.scrollbar_size_vertical
        return max(width, 0)

    def relayout(self) -> None:
        width = self.available_width()
        rows = self.shown_rows()
        if width <= 0 or self.laid_out_for == (width, len(rows)):
            return
        self.laid_out_for = (width, len(rows))
        natural = {c.key: natural_width(c, rows) for c in self.cols}
        if self.sort_key in natural:  # room for the arrow
            col = next(c for c in self.cols if c.key == self.sort_key)
            natural[col.key] = max(natural[col.key], cell_len(col.label) + 1)
        floors = {c.key: url_floor(c, rows) for c in self.cols if c.url}
        widths = plan_widths(self.cols, natural, width, floors)
        keep = self.wanted_cursor
        self.clear(columns=True)
        shown = [c for c in self.cols if c.key in widths]
        for c in shown:
            label = c.label
            if c.key == self.sort_key:
                label = f"{label}{'↓' if self.sort_reverse else '↑'}"
            self.add_column(fit(label, widths[c.key]), width=widths[c.key], key=c.key)
        values = {c.key: [plain(r.get(c.key, "")) for _, r in rows] for c in shown if c.apart}
        for key, row in rows:
            cells = (
                fit_cell(c, row.get(c.key, ""), widths[c.key], values.get(c.key, ())) for c in shown
            )
            self.add_row(*cells, key=key)
        if keep is not None and keep in {k for k, _ in rows}:
            self.move_cursor(row=self.get_row_index(keep), animate=False)

"""A DataTable that fits its width: low-value columns narrow, then go, before key or badge ones.

Each column says how narrow it may get and in which order it is dropped when even that does not
fit (0: never). The rows are kept as given, so a resize re-lays them out, and the cursor stays on
the same row key across refreshes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.widgets import DataTable

Cell = str | Text
Row = tuple[str, Mapping[str, Cell]]  # row key, cells by column key
PADDING = 2  # DataTable's cell padding, one each side


@dataclass(frozen=True)
class Col:
    key: str
    label: str
    min: int = 4
    max: int | None = None
    drop: int = 0  # higher goes first when space is short; 0 never goes


def plan_widths(cols: Sequence[Col], natural: dict[str, int], width: int) -> dict[str, int]:
    """Column widths that fit `width` cells: natural if they fit, else narrowed, else dropped."""
    shown = list(cols)

    def need(widths: dict[str, int]) -> int:
        return sum(widths[c.key] + PADDING for c in shown)

    def narrowest() -> dict[str, int]:
        return {c.key: min(natural[c.key], c.min) for c in shown}

    while need(narrowest()) > width and any(c.drop for c in shown):
        shown.remove(max((c for c in shown if c.drop), key=lambda c: c.drop))
    widths = {c.key: natural[c.key] for c in shown}
    excess = need(widths) - width
    # narrow the widest shrinkable column one cell at a time: long URLs and names give first
    while excess > 0:
        candidates = [c for c in shown if widths[c.key] > min(natural[c.key], c.min)]
        if not candidates:
            break
        widest = max(candidates, key=lambda c: (widths[c.key] - c.min, c.drop))
        widths[widest.key] -= 1
        excess -= 1
    return widths


def plain(cell: Cell) -> str:
    return cell.plain if isinstance(cell, Text) else cell


def natural_width(col: Col, rows: Sequence[Row]) -> int:
    width = max([cell_len(col.label)] + [cell_len(plain(r.get(col.key, ""))) for _, r in rows])
    return min(width, col.max) if col.max else width


def fit(cell: Cell, width: int) -> Cell:
    if cell_len(plain(cell)) <= width:
        return cell
    text = cell.copy() if isinstance(cell, Text) else Text(cell)
    text.truncate(width, overflow="ellipsis")
    return text


class FitTable(DataTable[Cell]):
    def __init__(self, cols: Sequence[Col], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cols = list(cols)
        self.rows_data: Sequence[Row] = []
        self.laid_out_for: tuple[int, int] | None = None
        self.wanted_cursor: str | None = None

    def set_rows(self, rows: Sequence[Row], cursor: str | None = None) -> None:
        """Replace the rows; the cursor goes to `cursor`, else stays on the same row key."""
        if cursor is not None:
            self.wanted_cursor = cursor
        self.rows_data = rows
        self.laid_out_for = None
        self.relayout()

    def put_cursor(self, key: str) -> bool:
        if key not in {k for k, _ in self.rows_data}:
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
        if len(self.rows_data) + 1 > self.size.height:
            width -= self.styles.scrollbar_size_vertical
        return max(width, 0)

    def relayout(self) -> None:
        width = self.available_width()
        if width <= 0 or self.laid_out_for == (width, len(self.rows_data)):
            return
        self.laid_out_for = (width, len(self.rows_data))
        natural = {c.key: natural_width(c, self.rows_data) for c in self.cols}
        widths = plan_widths(self.cols, natural, width)
        keep = self.wanted_cursor
        self.clear(columns=True)
        shown = [c for c in self.cols if c.key in widths]
        for c in shown:
            self.add_column(str(fit(c.label, widths[c.key])), width=widths[c.key], key=c.key)
        for key, row in self.rows_data:
            self.add_row(*(fit(row.get(c.key, ""), widths[c.key]) for c in shown), key=key)
        if keep is not None and keep in {k for k, _ in self.rows_data}:
            self.move_cursor(row=self.get_row_index(keep), animate=False)

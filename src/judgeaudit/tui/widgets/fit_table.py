"""A DataTable that fits its width: low-value columns narrow, then go, before key or badge ones.

Each column says how narrow it may get and in which order it is dropped when even that does not
fit (0: never). The rows are kept as given, so a resize re-lays them out, and the cursor stays on
the same row key across refreshes.

Every table has the habits of the best terminal apps: `/` filters its rows, `s` sorts by the
next column (numbers as numbers) and `S` reverses, Home/End go to the first/last row, `y` copies
the row's key (a pair id, a profile) and `Y` the whole table (tab-separated) to the clipboard.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urlsplit

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
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
    whole: bool = False  # never cut: a verdict or an interval read in part misleads
    middle: bool = False  # cut in the middle: a URL's port and path tell rows apart
    apart: bool = False  # cut to keep where a value parts from the others' (a judge's options)
    figure: bool = False  # ``name figure``: the name is cut, never the figure after it
    #: a URL: scheme and path give way first, its host:port never (the gateway a row points at)
    url: bool = False
    late: bool = False  # narrowed only once the others are at their narrowest (a profile's name)
    time: bool = False  # a timestamp: its seconds, then its year give way, never a digit cut

    def narrowest(self, natural: int, floor: int | None = None) -> int:
        return natural if self.whole else min(natural, self.min if floor is None else floor)


def plan_widths(
    cols: Sequence[Col],
    natural: dict[str, int],
    width: int,
    floors: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Column widths that fit `width` cells: natural if they fit, else narrowed, else dropped.
    ``floors``: a column's own narrowest (a URL column's widest host:port)."""
    shown = list(cols)
    floors = floors or {}

    def need(widths: dict[str, int]) -> int:
        return sum(widths[c.key] + PADDING for c in shown)

    def narrowest() -> dict[str, int]:
        return {c.key: c.narrowest(natural[c.key], floors.get(c.key)) for c in shown}

    while need(narrowest()) > width and any(c.drop for c in shown):
        shown.remove(max((c for c in shown if c.drop), key=lambda c: c.drop))
    widths = {c.key: natural[c.key] for c in shown}
    excess = need(widths) - width
    low = narrowest()
    # narrow the widest shrinkable column one cell at a time: long URLs and names give first,
    # a `late` column only once the others are at their narrowest
    while excess > 0:
        candidates = [c for c in shown if widths[c.key] > low[c.key]]
        if early := [c for c in candidates if not c.late]:
            candidates = early
        if not candidates:
            break
        widest = max(candidates, key=lambda c: (widths[c.key] - low[c.key], c.drop))
        widths[widest.key] -= 1
        excess -= 1
    return widths


def plain(cell: Cell) -> str:
    return cell.plain if isinstance(cell, Text) else cell


def natural_width(col: Col, rows: Sequence[Row]) -> int:
    width = max([cell_len(col.label)] + [cell_len(plain(r.get(col.key, ""))) for _, r in rows])
    return min(width, col.max) if col.max else width


def fit(cell: Cell, width: int, middle: bool = False) -> Cell:
    """``cell`` cut to ``width``, always as Text: DataTable reads a plain str as markup, so an
    agent or task name with ``[8b]`` lost it and one with ``[/b]`` raised MarkupError.
    ``middle``: the cut is a third of the way in (``http…8765/v1``: at 80 columns every
    loopback profile's URL read ``http://127.…``)."""
    if cell_len(plain(cell)) <= width:
        return Text(cell) if isinstance(cell, str) else cell
    text = cell.copy() if isinstance(cell, Text) else Text(cell)
    if middle and width >= 5 and len(text.plain) == cell_len(text.plain):  # one cell a char
        head = width // 3  # the end tells more apart (a port, a path)
        tail = width - 1 - head
        return text[:head] + Text("…") + text[len(text.plain) - tail :]
    text.truncate(width, overflow="ellipsis")
    return text


def host_port(url: str) -> str | None:
    """``api.moonshot.cn`` of ``https://api.moonshot.cn/v1``, ``127.0.0.1:18101`` of
    ``http://127.0.0.1:18101/v1``; None for what is no URL."""
    netloc = urlsplit(url).netloc if "://" in url else ""
    return netloc.rpartition("@")[2] or None


def fit_url(cell: Cell, width: int) -> Cell:
    """A URL cut to ``width`` so its host and port stay: whole, then without the scheme, then
    host:port and ``/…`` for the path, then host:port; only a host:port wider than ``width`` is
    cut, in its middle (two loopback gateways read ``http…1:18101`` and ``http…/api/v1``)."""
    value = plain(cell)
    host = host_port(value)
    if cell_len(value) <= width or host is None:
        return fit(cell, width, middle=True)
    bare = value.split("://", 1)[1]
    for shown in (bare, f"{host}/…" if bare.rstrip("/") != host else host, host):
        if cell_len(shown) <= width:
            return Text(shown)
    return fit(host, width, middle=True)


def url_floor(col: Col, rows: Sequence[Row]) -> int:
    """A URL column's narrowest: its widest host:port (at most ``col.max`` or 32)."""
    hosts = [host_port(plain(r.get(col.key, ""))) for _, r in rows]
    return min(max([col.min] + [cell_len(h) for h in hosts if h]), col.max or 32)


def _shared(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` have in common."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def fit_apart(cell: Cell, width: int, others: Sequence[str]) -> Cell:
    """``cell`` cut to ``width`` so the part where it differs from ``others`` stays: its head,
    ``…``, then from the first character no other value shares (``judg…diligence=0…`` and
    ``judg…evidence=0,s…``, where an end cut read ``judge-defau…`` twice). A value whose
    difference a plain cut keeps is cut as :func:`fit` cuts it."""
    text = cell.copy() if isinstance(cell, Text) else Text(cell)
    value = text.plain
    if cell_len(value) <= width or width < 7 or len(value) != cell_len(value):
        return fit(cell, width)
    shared = max((_shared(value, o) for o in others if o != value), default=0)
    if shared < width - 1:
        return fit(cell, width)
    head = width // 3
    room = width - head - 1
    if len(value) - shared <= room:  # the rest shows whole
        return text[:head] + Text("…") + text[len(value) - room :]
    return text[:head] + Text("…") + text[shared : shared + room - 1] + Text("…")


def fit_figure(cell: Cell, width: int) -> Cell:
    """``name 12.8 (unstable)`` cut in its name, the figure after the first space whole
    (``asks_confirm… 12.8``: cut at its end it read ``asks_confirmation 12…``)."""
    text = cell.copy() if isinstance(cell, Text) else Text(cell)
    value = text.plain
    name, space, rest = value.partition(" ")
    keep = cell_len(rest) + 2  # "… " before the figure
    if cell_len(value) <= width or not space or len(name) != cell_len(name) or width - keep < 3:
        return fit(cell, width)
    return text[: width - keep] + Text("… ") + text[len(name) + 1 :]


TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d")


def fit_time(cell: Cell, width: int) -> Cell:
    """``2026-12-06 10:49:09`` shortened by its least telling parts: without its seconds, then
    without its year (``12-06 10:49``); cut at its end it read ``2026-12-06 10:4…``."""
    value = plain(cell)
    if cell_len(value) > width and TIMESTAMP.match(value):
        for shown in (value[:16], value[5:16]):
            if len(shown) <= width:
                return Text(shown)
    return fit(cell, width)


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
                fit_apart(row.get(c.key, ""), widths[c.key], values[c.key])
                if c.apart
                else fit_figure(row.get(c.key, ""), widths[c.key])
                if c.figure
                else fit_url(row.get(c.key, ""), widths[c.key])
                if c.url
                else fit_time(row.get(c.key, ""), widths[c.key])
                if c.time
                else fit(row.get(c.key, ""), widths[c.key], c.middle)
                for c in shown
            )
            self.add_row(*cells, key=key)
        if keep is not None and keep in {k for k, _ in rows}:
            self.move_cursor(row=self.get_row_index(keep), animate=False)

"""How a table's columns fit a width: which columns narrow or go (`plan_widths`, from each
`Col`'s rules), and how a cell is cut to its column's width so what tells rows apart stays (a
URL's host:port, where a judge's options part, the figure after a name, a timestamp's date and
minute). Plain functions, apart from the widget (`fit_table.py`: its keys, filter, sort and
copy), which lays its rows out through `plan_widths` and `fit_cell`; split from it at 400 lines.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from rich.cells import cell_len
from rich.text import Text

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


def fit_cell(col: Col, cell: Cell, width: int, values: Sequence[str] = ()) -> Cell:
    """``cell`` cut to ``width`` by its column's rule; ``values``: the column's other values,
    for an ``apart`` column."""
    if col.apart:
        return fit_apart(cell, width, values)
    if col.figure:
        return fit_figure(cell, width)
    if col.url:
        return fit_url(cell, width)
    if col.time:
        return fit_time(cell, width)
    return fit(cell, width, col.middle)

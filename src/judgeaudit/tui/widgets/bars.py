"""Misselection by bucket as horizontal bars with the 95% interval marked, in plain text cells.

Labels are padded by terminal cells, not characters (近同 is four cells wide), so the bars of
any number of buckets start in one column."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from judgeaudit.analysis.fmt import bracket, bucket_name, pct

WIDTH = 40


def pad(text: str, cells: int) -> str:
    return text + " " * max(0, cells - cell_len(text))


def bars(buckets: Sequence[Mapping[str, Any]], width: int = WIDTH) -> Text:
    out = Text()
    names = [bucket_name(b) for b in buckets]
    column = max((cell_len(n) for n in names), default=0) + 1
    for b, name in zip(buckets, names, strict=True):
        out.append(pad(name, column))
        if b["rate"] is None:
            out.append("no decisive pairs\n", style="dim")
            continue
        cells = [" "] * width
        filled = round(b["rate"] * width)
        low, high = b.get("ci_low"), b.get("ci_high")
        if low is not None and high is not None:
            lo, hi = round(low * width), min(width - 1, round(high * width))
            for i in range(filled, width):
                cells[i] = "─" if lo <= i <= hi else " "
            if 0 <= lo < width:
                cells[lo] = "├" if lo >= filled else cells[lo]
            if hi >= filled:
                cells[hi] = "┤"
        for i in range(filled):
            cells[i] = "█"
        out.append("".join(cells[:filled]), style="red")
        out.append("".join(cells[filled:]), style="white")
        # a rate shown without an interval says so rather than inventing one
        shown = bracket([low, high], none="[no interval]")
        out.append(f" {pct(b['rate']):>6} {shown} n={b['decisive']}\n")
    return out


class BucketBars(Static):
    def show(self, buckets: Sequence[Mapping[str, Any]], width: int = WIDTH) -> None:
        self.update(bars(buckets, width))

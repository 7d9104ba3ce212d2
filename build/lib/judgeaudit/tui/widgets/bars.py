"""Misselection by bucket as horizontal bars with the 95% interval marked, in plain text cells."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

WIDTH = 40


def bars(buckets: list[dict[str, Any]], width: int = WIDTH) -> Text:
    out = Text()
    for b in buckets:
        label = f"{b['label']} {b['alias']:<7}"
        out.append(f"{label:<13}")
        if b["rate"] is None:
            out.append("no decisive pairs\n", style="dim")
            continue
        cells = [" "] * width
        filled = round(b["rate"] * width)
        lo, hi = round(b["ci_low"] * width), min(width - 1, round(b["ci_high"] * width))
        for i in range(width):
            cells[i] = "█" if i < filled else ("─" if lo <= i <= hi else " ")
        if 0 <= lo < width:
            cells[lo] = "├" if lo >= filled else cells[lo]
        if hi >= filled:
            cells[hi] = "┤"
        out.append("".join(cells[:filled]), style="red")
        out.append("".join(cells[filled:]), style="white")
        out.append(
            f" {b['rate'] * 100:5.1f}% [{b['ci_low'] * 100:.1f}–{b['ci_high'] * 100:.1f}] n={b['decisive']}\n"
        )
    return out


class BucketBars(Static):
    def show(self, buckets: list[dict[str, Any]]) -> None:
        self.update(bars(buckets))

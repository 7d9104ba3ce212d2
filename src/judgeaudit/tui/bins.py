"""Bin edges typed on the Results screen: parsed with a message that names the problem, and
labelled so every bucket has its own label however many there are and however close the edges."""

from __future__ import annotations

import itertools
import math

from judgeaudit.errors import InputError

ZH_BUCKETS = 4  # four bins get the report's 近同/小差/中差/大差 labels


def parse_bins(text: str) -> list[float] | None:
    """`-0.01, 0.2, 0.5` → edges; empty → None (the run's declared bins)."""
    text = text.strip()
    if not text:
        return None
    edges = []
    for part in text.split(","):
        part = part.strip()
        try:
            value = float(part)
        except ValueError:
            raise InputError(
                f"bins: {part!r} is not a number; type edges like -0.01,0.2,0.5,1"
            ) from None
        if not math.isfinite(value):
            raise InputError(f"bins: {part!r} is not a finite number")
        edges.append(value)
    if len(edges) < 2:
        raise InputError("bins: at least two edges are needed, e.g. -0.01,0.5,1")
    if any(b <= a for a, b in itertools.pairwise(edges)):
        raise InputError("bins: edges must increase strictly, e.g. -0.01,0.2,0.5,1")
    return edges


def edge_text(value: float, digits: int) -> str:
    return f"{value:.{digits}g}"


def distinct_labels(bins: list[float]) -> list[str] | None:
    """`(lo, hi]` labels with as many digits as it takes to tell the edges apart; None for four
    bins (the report's own labels)."""
    if len(bins) - 1 == ZH_BUCKETS:
        return None
    for digits in range(3, 18):
        texts = [edge_text(b, digits) for b in bins]
        if len(set(texts)) == len(texts):
            break
    return [f"({texts[i]}, {texts[i + 1]}]" for i in range(len(bins) - 1)]

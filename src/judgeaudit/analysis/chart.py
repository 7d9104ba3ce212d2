"""The bucket bar chart with 95% CI whiskers as a standalone SVG (no external assets)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from math import ceil, floor, isfinite, log10
from typing import Any


def nice_ticks(high: float, most: int = 5) -> list[float]:
    """The y ticks of a chart from 0 to at least ``high``: 0 and the multiples of the smallest
    step 1, 2 or 5 × 10^k that covers ``high`` in at most ``most`` intervals (0.2666 -> 0, 0.1,
    0.2, 0.3; not 0, 0.067, 0.133, 0.2 …). The last tick is the axis's top."""
    if not isfinite(high) or high <= 0:
        high = 1.0
    power = floor(log10(high / most))
    for exponent in (power, power + 1):
        for mantissa in (1, 2, 5, 10):
            step = mantissa * 10.0**exponent
            intervals = ceil(high / step - 1e-9)
            if intervals <= most:
                return [round(i * step, 12) for i in range(intervals + 1)]
    raise AssertionError("unreachable: a step of 10^(k+2) covers high in one interval")


def bucket_svg(buckets: Sequence[Mapping[str, Any]], title: str) -> str:
    width, height, left, bottom, top = 560, 300, 56, 48, 36
    plot_w, plot_h = width - left - 20, height - bottom - top
    slot = plot_w / max(len(buckets), 1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="{left}" y="20" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    for share in nice_ticks(1.0):
        tick = round(share * 100)
        y = top + plot_h * (1 - share)
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
        )
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}%</text>')
    for index, bucket in enumerate(buckets):
        x = left + index * slot + slot * 0.2
        bar_w = slot * 0.6
        label = (
            f"{bucket['label']} / {bucket['alias']}"
            if bucket["alias"] != bucket["label"]
            else bucket["label"]
        )
        parts.append(
            f'<text x="{x + bar_w / 2:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{escape(label)}</text>'
        )
        parts.append(
            f'<text x="{x + bar_w / 2:.1f}" y="{top + plot_h + 32}" text-anchor="middle" fill="#555">n={bucket["decisive"]}</text>'
        )
        if bucket["rate"] is None:
            parts.append(
                f'<text x="{x + bar_w / 2:.1f}" y="{top + plot_h - 6}" text-anchor="middle" fill="#999">no data</text>'
            )
            continue
        bar_h = plot_h * bucket["rate"]
        parts.append(
            f'<rect x="{x:.1f}" y="{top + plot_h - bar_h:.1f}" width="{bar_w:.1f}" height="{bar_h:.1f}" fill="#c0504d"/>'
        )
        lo_y = top + plot_h * (1 - bucket["ci_low"])
        hi_y = top + plot_h * (1 - bucket["ci_high"])
        cx = x + bar_w / 2
        parts.append(
            f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{lo_y:.1f}" y2="{hi_y:.1f}" stroke="black"/>'
        )
        for y in (lo_y, hi_y):
            parts.append(
                f'<line x1="{cx - 6:.1f}" x2="{cx + 6:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="black"/>'
            )
        parts.append(
            f'<text x="{cx:.1f}" y="{hi_y - 5:.1f}" text-anchor="middle">{bucket["rate"] * 100:.1f}%</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)

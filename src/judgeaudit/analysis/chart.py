"""The bucket bar chart with 95% CI whiskers as a standalone SVG (no external assets)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any


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
    for tick in range(0, 101, 25):
        y = top + plot_h * (1 - tick / 100)
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

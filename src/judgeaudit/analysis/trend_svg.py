"""The trend page's line chart of one metric (inline SVG, no script): the app's day axis
(:mod:`judgeaudit.analysis.trend_axis`), the 95% band, alerts as large red dots, and where
nothing was measured, why (split from :mod:`judgeaudit.analysis.trend_fmt`)."""

from __future__ import annotations

import textwrap
from html import escape
from typing import Any

from judgeaudit.analysis.fmt import pct
from judgeaudit.analysis.trend_axis import day_axis, line_runs, x_ticks, y_ticks

#: A tick label's character width, in em, at most (a digit is 0.56 em in a sans-serif font)
LABEL_EM = 0.6


def line_svg(
    title: str,
    points: list[dict[str, Any]],
    periods: list[str],
    alerts: set[str],
    percent: bool,
    refused: list[str] | None = None,
    daily: bool = False,
) -> str:
    """One metric over the periods on the app's axis (:mod:`judgeaudit.analysis.trend_axis`: a
    day at its own place; a gap where one is not measured, and, ``daily``, where a daily
    folder's day is missing): the line, its 95% band, round y ticks, red markers on alerted
    periods."""
    # 40 on the right: the last day's label (66 wide) centred on its tick, inside the page
    width, height, left, right, top, bottom = 640, 220, 56, 40, 28, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    ticks = y_ticks(points, percent)
    high = ticks[-1]
    at, axis = day_axis(periods)
    step = plot_w / max(1, *at.values())

    def xy(period: str, value: float) -> tuple[float, float]:
        return left + at[period] * step, top + plot_h * (1 - min(value, high) / high)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="{left}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>',
    ]
    for value in ticks:
        y = top + plot_h * (1 - value / high)
        label = f"{value * 100:.0f}%" if percent else f"{value:g}"
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" '
                     'stroke="#ddd"/>')  # fmt: skip
        parts.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    for day, label in x_ticks(periods, plot_w, LABEL_EM * 11 * 10):  # a date: 10 characters
        x = left + day * step
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top + plot_h}" y2="{top + plot_h + 4}" '
                     'stroke="#999"/>')  # fmt: skip
        parts.append(f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle">'
                     f"{escape(label)}</text>")  # fmt: skip
    for run in line_runs(points, at, refused or [], daily=daily):
        banded = [p for p in run if p["ci_low"] is not None and p["ci_high"] is not None]
        upper = [xy(p["period"], p["ci_high"]) for p in banded]
        lower = [xy(p["period"], p["ci_low"]) for p in reversed(banded)]
        if len(banded) == 1:  # a lone day's band: its interval as a bar
            parts.append(f'<line x1="{upper[0][0]:.1f}" x2="{lower[0][0]:.1f}" y1="{upper[0][1]:.1f}" '
                         f'y2="{lower[0][1]:.1f}" stroke="#c0504d" stroke-opacity="0.3" stroke-width="6"/>')  # fmt: skip
        elif banded:
            poly = " ".join(f"{x:.1f},{y:.1f}" for x, y in upper + lower)
            parts.append(f'<polygon points="{poly}" fill="#c0504d" fill-opacity="0.18"/>')
        if len(run) > 1:
            path = " ".join(
                f"{x:.1f},{y:.1f}" for x, y in (xy(p["period"], p["rate"]) for p in run)
            )
            parts.append(f'<polyline points="{path}" fill="none" stroke="#c0504d" stroke-width="2"/>')  # fmt: skip
    for p in points:
        if p["rate"] is None:
            continue
        x, y = xy(p["period"], p["rate"])
        hit = p["period"] in alerts
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{5 if hit else 2.5}" '
            f'fill="{"#d00" if hit else "#c0504d"}"><title>{escape(p["period"])}: '
            f"{pct(p['rate']) if percent else format(p['rate'], '.3g')}</title></circle>"
        )
    if not any(p["rate"] is not None for p in points):  # nothing to draw: why, not a blank plot
        why = next((p["no_interval"] for p in points if p.get("no_interval")), "no data")
        parts.append(_middle_note(why, left + plot_w / 2, top + plot_h / 2, plot_w))
    parts.append(
        f'<text x="{left}" y="{height - 6}" fill="#555">{escape(axis)}; shaded: 95% interval; '
        f"large red dots: alerts; a gap: {'a day missing or ' if daily else 'a period '}not "
        "measured</text></svg>"
    )
    return "\n".join(parts)


#: the middle note's line height, px (font-size 11)
NOTE_LINE = 14


def _middle_note(why: str, x: float, y: float, width: float) -> str:
    """Why a chart has nothing to draw, whole, centred at (x, y): wrapped into lines that fit
    ``width`` (at :data:`LABEL_EM` per character; it was cut at about 85 characters)."""
    lines = textwrap.wrap(why, max(20, int(width / (LABEL_EM * 11))), break_on_hyphens=False)
    top = y - (len(lines) - 1) * NOTE_LINE / 2
    spans = "".join(
        f'<tspan x="{x:.1f}" y="{top + i * NOTE_LINE:.1f}">{escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" fill="#555">{spans}</text>'

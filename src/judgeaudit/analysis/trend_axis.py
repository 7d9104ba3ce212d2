"""Where a trend's periods sit on the x axis, and where its line breaks: one owner for the HTML
page's charts (:func:`judgeaudit.analysis.trend_svg.line_svg`) and the app's Trends screen, so
both put a day at its own place and leave a gap where a daily folder's day is missing."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from itertools import pairwise
from typing import Any

from judgeaudit.analysis.chart import nice_ticks

#: A day axis's tick steps, in days from the first period (day 0): whole days, then whole weeks.
DAY_STEPS = (1, 2, 7, 14, 28, 56, 91, 182, 364)


def _dates(periods: list[str]) -> list[date]:
    """Each period's date when every period is a distinct date, else []."""
    try:
        days = [date.fromisoformat(p[:10]) for p in periods]
    except ValueError:
        return []
    return days if len(set(days)) == len(days) else []


def day_axis(periods: list[str]) -> tuple[dict[str, int], str]:
    """Each period's x: its days after the first when every period is a distinct date, so a
    refused day leaves its own gap (by index, the day after it took its place: x 5 read
    2026-11-07 after 2026-11-06 was refused); else its index. With the axis's name."""
    days = _dates(periods)
    if not days:
        return {p: i for i, p in enumerate(periods)}, f"period (0 = {periods[0][:10]})"
    return {p: (d - days[0]).days for p, d in zip(periods, days, strict=True)}, (
        f"day (0 = {periods[0][:10]})"
    )


def x_ticks(periods: list[str], width: float, label: float) -> list[tuple[int, str]]:
    """The x ticks of a chart ``width`` wide whose tick labels are each ``label`` wide: each
    tick's x on :func:`day_axis` and its label, at the smallest step that keeps the labels
    apart (a label's width and a fifth between two). On a day axis the step is whole days or
    weeks (:data:`DAY_STEPS`) from the first day, each tick labelled with the period there
    (``2026-W05``, ``2026-11-08``), else its date (30 days on 544 points: every 7th day, 11-01,
    11-08 …; every third period before, the last two overlapping); on a period axis (months,
    whose periods are no dates) a round number of periods
    (:func:`~judgeaudit.analysis.chart.nice_ticks`), labelled with the period."""
    at, _ = day_axis(periods)
    last = max(at.values())
    room = width / max(1, last)  # the width of one day (or period)
    days = _dates(periods)
    if days:  # steps of whole periods when every period is days apart (weeks: 7, 14, 28 …)
        gap = min((b - a).days for a, b in pairwise(days)) if len(days) > 1 else 1
        steps = [s for s in DAY_STEPS if s % gap == 0] or [gap * 2**k for k in range(12)]
        step = next((s for s in steps if s * room >= label * 1.2), max(1, last))
        named = {x: p[:10] for p, x in at.items()}  # a period's own name (2026-W45) on its x
        return [(x, named.get(x) or (days[0] + timedelta(x)).isoformat())
                for x in range(0, last + 1, step)]  # fmt: skip
    fits = max(1, int(width // (label * 1.2)))
    step = max(1, int(nice_ticks(max(1, last), fits)[1]))
    return [(x, periods[x][:10]) for x in range(0, len(periods), step)]


def y_ticks(points: list[dict[str, Any]], pct: bool, most: int = 5) -> list[float]:
    """A metric's y ticks (:func:`~judgeaudit.analysis.chart.nice_ticks`), the last one the
    axis's top: above the highest rate or interval edge, a rate's axis within 10-100%. The
    HTML page's charts and the app's Trends screen both read them, so both show 0, 10, 20 …"""
    values = [v for p in points for v in (p["rate"], p["ci_low"], p["ci_high"]) if v is not None]
    high = max(values or [1.0]) * 1.1
    if pct:
        high = min(1.0, max(0.1, max(values or [0.1]) * 1.15))
    return nice_ticks(high, most)


def from_daily_files(trend: dict[str, Any]) -> bool:
    """Whether a trend's periods are a folder's daily files or a Parquet history's daily
    imports (``trend["daily"]``, which :func:`judgeaudit.daily.trend_with_alerts` sets for
    every such target): a day is expected each day there, so a missing one breaks the line."""
    return "daily" in trend


def line_runs(
    points: list[dict[str, Any]],
    at: dict[str, int],
    refused: Iterable[str] = (),
    *,
    daily: bool = False,
) -> list[list[dict[str, Any]]]:
    """A metric's points with a rate, in runs its line may join: a run ends at a point without
    a rate (not measured) and across a refused day. ``daily`` (a folder of daily files, where a
    day is expected): also at a step longer than the series' shortest, a missing day (a weekly
    series stamped by date steps 7 throughout). Other series (output dirs on irregular dates)
    join every measured period, as their periods are all there is."""
    xs = sorted(set(at.values()))
    usual = min((b - a for a, b in pairwise(xs)), default=1)
    skipped = sorted(refused)
    runs: list[list[dict[str, Any]]] = []
    joined = False
    for p in points:
        if p["rate"] is None:
            joined = False
            continue
        if joined and runs:
            last = runs[-1][-1]
            apart = daily and at[p["period"]] - at[last["period"]] > usual
            joined = not apart and not any(last["period"] < r < p["period"] for r in skipped)
        if joined:
            runs[-1].append(p)
        else:
            runs.append([p])
        joined = True
    return runs

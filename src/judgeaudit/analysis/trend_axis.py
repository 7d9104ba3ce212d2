"""Where a trend's periods sit on the x axis, and where its line breaks: one owner for the HTML
page's charts (:func:`judgeaudit.analysis.trend_fmt.line_svg`) and the app's Trends screen, so
both put a day at its own place and leave a gap where a daily folder's day is missing."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from itertools import pairwise
from typing import Any


def day_axis(periods: list[str]) -> tuple[dict[str, int], str]:
    """Each period's x: its days after the first when every period is a distinct date, so a
    refused day leaves its own gap (by index, the day after it took its place: x 5 read
    2026-11-07 after 2026-11-06 was refused); else its index. With the axis's name."""
    try:
        days = [date.fromisoformat(p[:10]) for p in periods]
    except ValueError:
        days = []
    if not days or len(set(days)) != len(days):
        return {p: i for i, p in enumerate(periods)}, f"period (0 = {periods[0][:10]})"
    return {p: (d - days[0]).days for p, d in zip(periods, days, strict=True)}, (
        f"day (0 = {periods[0][:10]})"
    )


def from_daily_files(trend: dict[str, Any]) -> bool:
    """Whether a trend's periods are a folder's daily files (``trend["daily"]``, which
    :func:`judgeaudit.daily.trend_with_alerts` sets for every such folder): a day is expected
    each day there, so a missing one breaks the line."""
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

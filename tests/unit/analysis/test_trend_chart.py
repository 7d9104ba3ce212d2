"""The trend page's line charts: a day at its own place on the app's day axis, a gap (no line)
where a day is missing or not measured, and y ticks at round steps (1, 2 or 5 × 10^k). Every
expected value is worked out by hand from the chart's geometry (640 × 220, plot 544 × 148 at
x 56, y 28)."""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

import pytest

from judgeaudit.analysis.chart import bucket_svg, nice_ticks
from judgeaudit.analysis.trend_axis import day_axis, from_daily_files, line_runs
from judgeaudit.analysis.trend_metrics import no_interval_note
from judgeaudit.analysis.trend_svg import line_svg


def point(period: str, rate: float | None) -> dict[str, Any]:
    low, high = (None, None) if rate is None else (rate - 0.05, rate + 0.08)
    return {"period": period, "rate": rate, "ci_low": low, "ci_high": high, "n": 50,
            "no_interval": None if rate is not None else "not measured"}  # fmt: skip


@pytest.mark.parametrize(
    ("high", "ticks"),
    [
        (0.2666, [0, 0.1, 0.2, 0.3]),  # not 0, 6.7, 13.3, 20, 26.7%
        (0.2, [0, 0.05, 0.1, 0.15, 0.2]),  # step 0.02 needs 10 intervals; 0.05 four
        (0.13, [0, 0.05, 0.1, 0.15]),
        (1.0, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (0.1, [0, 0.02, 0.04, 0.06, 0.08, 0.1]),
        (3.3, [0, 1, 2, 3, 4]),  # an odds ratio: step 0.5 needs 7
        (47.0, [0, 10, 20, 30, 40, 50]),
        (7.0, [0, 2, 4, 6, 8]),
    ],
)
def test_ticks_are_round_steps_covering_the_top(high: float, ticks: list[float]) -> None:
    assert nice_ticks(high) == pytest.approx(ticks)


def labels(svg: str) -> list[str]:
    return re.findall(r'text-anchor="end">([^<]+)<', svg)


def test_trend_chart_puts_days_on_the_day_axis_with_a_gap_for_a_missing_day() -> None:
    """A daily folder's days 1, 2 and 4 (day 3 missing): day 4 sits at x 600 (3 of 3 days
    across), not at 328 as the third of three periods; the line joins days 1 and 2 only.
    Highest value 0.26 (a band edge) × 1.15 = 0.299: ticks 0, 10, 20, 30%, so rate 0.1 sits
    at 28 + 148 × 2/3."""
    points = [point("2026-11-01", 0.1), point("2026-11-02", 0.12), point("2026-11-04", 0.18)]
    periods = [p["period"] for p in points]
    svg = line_svg("misselection", points, periods, set(), percent=True, daily=True)
    assert re.findall(r'<polyline points="([^"]*)"', svg) == ["56.0,126.7 237.3,116.8"]
    assert re.findall(r'<circle cx="([\d.]+)"', svg) == ["56.0", "237.3", "600.0"]
    assert labels(svg) == ["0%", "10%", "20%", "30%"]
    assert "day (0 = 2026-11-01)" in svg and "a gap: a day missing or not measured" in svg
    # output dirs on those dates: no day is expected, so one line through all three (0.18 at
    # 28 + 148 × 0.4 = 87.2)
    svg = line_svg("misselection", points, periods, set(), percent=True)
    assert re.findall(r'<polyline points="([^"]*)"', svg) == ["56.0,126.7 237.3,116.8 600.0,87.2"]
    assert "a gap: a period not measured" in svg


def test_a_not_measured_day_breaks_the_line() -> None:
    """An outage day (no rate) between two measured ones: two lone points, no line over it."""
    points = [point("2026-11-01", 0.1), point("2026-11-02", None), point("2026-11-03", 0.2)]
    for daily in (True, False):
        svg = line_svg("misselection", points, [p["period"] for p in points], set(), True,
                       daily=daily)  # fmt: skip
        assert "<polyline" not in svg
        assert re.findall(r'<circle cx="([\d.]+)"', svg) == ["56.0", "600.0"]


def days_of(runs: list[list[dict[str, Any]]]) -> list[list[str]]:
    return [[p["period"][5:] for p in run] for run in runs]


def test_line_runs_break_at_missing_and_refused_days_only() -> None:
    days = ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-05", "2026-11-06"]
    at, _ = day_axis(days)
    runs = line_runs([point(d, 0.1) for d in days], at, daily=True)
    assert days_of(runs) == [["11-01", "11-02", "11-03"], ["11-05", "11-06"]]
    weekly = ["2026-11-01", "2026-11-08", "2026-11-15"]  # steps of 7 throughout: one line
    at, _ = day_axis(weekly)
    assert len(line_runs([point(d, 0.1) for d in weekly], at, daily=True)) == 1
    months = ["2026-10", "2026-11"]  # not dates: numbered, joined unless a refused one between
    at, axis = day_axis(months)
    assert axis == "period (0 = 2026-10)"
    assert len(line_runs([point(m, 0.1) for m in months], at, ["2026-10-15"], daily=True)) == 2


def test_output_dirs_on_irregular_dates_draw_one_line() -> None:
    """Output dirs on days 0, 1, 4, 7 and 14: no day is expected between them, so one line
    (the twenty-second session first broke it at every step longer than one day: 11-02 and
    11-03 joined, the other three lone dots). A daily folder with those days misses days, so
    there the line breaks at each step over one day. A period not measured breaks either."""
    days = ["2026-11-02", "2026-11-03", "2026-11-06", "2026-11-09", "2026-11-16"]
    at, _ = day_axis(days)
    points = [point(d, 0.1) for d in days]
    assert days_of(line_runs(points, at)) == [["11-02", "11-03", "11-06", "11-09", "11-16"]]
    assert days_of(line_runs(points, at, daily=True)) == [
        ["11-02", "11-03"], ["11-06"], ["11-09"], ["11-16"]]  # fmt: skip
    points[2] = point("2026-11-06", None)
    assert days_of(line_runs(points, at)) == [["11-02", "11-03"], ["11-09", "11-16"]]


def test_a_trend_from_daily_files_expects_every_day() -> None:
    """What says a trend's periods are a folder's daily files (set by ``trend_with_alerts``
    for each such folder, clean or not): the charts break at a missing day there only."""
    assert from_daily_files({"periods": [], "daily": {"reaudited": [], "refused": []}})
    assert not from_daily_files({"periods": []})


def test_report_bucket_chart_ticks_are_round() -> None:
    bucket = {"label": "near", "alias": "near", "decisive": 10, "rate": None}
    assert labels(bucket_svg([bucket], "t")) == ["0%", "20%", "40%", "60%", "80%", "100%"]


def x_labels(svg: str) -> list[tuple[float, str]]:
    return [(float(x), t) for x, t in re.findall(r'<text x="([\d.]+)" y="192" '
                                                 r'text-anchor="middle">([^<]+)<', svg)]  # fmt: skip


def days(first: int, last: int) -> list[str]:
    return [f"2026-11-{d:02d}" for d in range(first, last + 1)]


def test_x_ticks_fall_on_whole_weeks_and_never_overlap() -> None:
    """A month of days (a new user's 30-day folder): the ticks fell on every third period,
    and the last two (11-28 at 584.8, 11-30 at 624) overlapped. Now every 7th day from the
    first, at 56 + day × 544/29; a label (10 characters of 11-point text, at most 66 wide)
    never reaches its neighbour nor the page's edge (640)."""
    month = days(1, 30)
    svg = line_svg("misselection", [point(d, 0.1) for d in month], month, set(), True)
    ticks = x_labels(svg)
    assert ticks == [(56.0, "2026-11-01"), (187.3, "2026-11-08"), (318.6, "2026-11-15"),
                     (449.9, "2026-11-22"), (581.2, "2026-11-29")]  # fmt: skip
    assert all(b[0] - a[0] >= 66 for a, b in pairwise(ticks))
    assert ticks[-1][0] + 33 <= 640


def test_x_ticks_on_few_days_are_every_day_missing_ones_included() -> None:
    """Days 1, 2 and 4: a tick on each day, 11-03 too (a missing day keeps its place)."""
    three = ["2026-11-01", "2026-11-02", "2026-11-04"]
    svg = line_svg("misselection", [point(d, 0.1) for d in three], three, set(), True)
    assert x_labels(svg) == [(56.0, "2026-11-01"), (237.3, "2026-11-02"),
                             (418.7, "2026-11-03"), (600.0, "2026-11-04")]  # fmt: skip


def test_x_ticks_name_weekly_periods_and_count_months() -> None:
    """Twenty ISO weeks are dates (their Mondays, 7 days apart: 133 days on 544, 4.1 a day):
    every 4th week (28 days, 114.5 wide; 14 days are 57, under a label's 66 and a fifth),
    named as the period. Twenty months are no dates (numbered, 28.6 a period): every 5th (a
    step of 2 is 57 wide)."""
    weeks = [f"2026-W{w:02d}" for w in range(1, 21)]
    svg = line_svg("misselection", [point(w, 0.1) for w in weeks], weeks, set(), True)
    assert [t for _, t in x_labels(svg)] == ["2026-W01", "2026-W05", "2026-W09", "2026-W13",
                                             "2026-W17"]  # fmt: skip
    months = [f"{2025 + m // 12}-{m % 12 + 1:02d}" for m in range(20)]
    svg = line_svg("misselection", [point(m, 0.1) for m in months], months, set(), True)
    assert [t for _, t in x_labels(svg)] == ["2025-01", "2025-06", "2025-11", "2026-04"]
    # a few weeks (a reviewer): every week, never a day between them (ticks fell on days 0, 2,
    # 4, 6, labelled with dates, and the second week had none)
    few = ["2026-W45", "2026-W46"]
    svg = line_svg("misselection", [point(w, 0.1) for w in few], few, set(), True)
    assert [t for _, t in x_labels(svg)] == few


def test_a_metric_measured_in_no_period_says_why_on_its_chart() -> None:
    """Recorded logs without a satisfaction note: the chart was an empty plot. Now its middle
    says why, whole (it was cut at 85 characters, `... a pair line) …`): wrapped into lines
    centred on the plot (328, 102), 14 px apart; and the note under it says it once for every
    period, not once per period."""
    why = ("not measured: the log holds no user satisfaction note (satisfied_a/_b on a pair "
           "line) and no user simulator ran")  # fmt: skip
    points = [{**point(d, None), "no_interval": why} for d in days(1, 3)]
    svg = line_svg("user satisfied but failed", points, days(1, 3), set(), True)
    middle = re.findall(r'<tspan x="328.0" y="([\d.]+)">([^<]+)</tspan>', svg)
    # 82 characters fit the 544 px plot at 0.6 em of 11 px each: two lines, at 102 ∓ 7
    assert middle == [
        ("95.0", "not measured: the log holds no user satisfaction note (satisfied_a/_b on a pair"),
        ("109.0", "line) and no user simulator ran"),
    ]
    assert "<circle" not in svg and "<polyline" not in svg
    assert no_interval_note(points, gaps=True) == f"every period: {why}"
    points[1] = point("2026-11-02", None)  # an outage day among them: each said
    # each reason once, its periods together
    assert no_interval_note(points, gaps=True) == (
        f"2026-11-01, 2026-11-03: {why}; 2026-11-02: not measured"
    )


def test_a_point_s_hover_title_rounds_as_the_table_does() -> None:
    """A new user read `2026-11-04: 5.16%` over a point the table shows as `5.2%`: the title
    rounds a rate to one decimal as every table does; an odds ratio keeps 3 figures."""
    svg = line_svg("misselection", [point("2026-11-04", 0.0516)], ["2026-11-04"], set(), True)
    assert re.findall(r"<title>([^<]+)</title>", svg) == ["2026-11-04: 5.2%"]
    svg = line_svg("odds ratio: hedging", [point("2026-11-04", 1.2345)], ["2026-11-04"], set(), False)  # fmt: skip
    assert re.findall(r"<title>([^<]+)</title>", svg) == ["2026-11-04: 1.23"]

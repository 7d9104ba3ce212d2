"""The trend's style odds ratios: an unstable period (its 95% interval over 100-fold: 9500 /
66.7 = 142 by hand) keeps its figures and the flag in ``style_odds_ratios`` and is a gap in the
charted series; alerts never test style odds ratios (docs/trend.md). The no-verdict share has
the report's task-clustered interval (statsmodels), and a period without per-task counts says
it has none."""

from __future__ import annotations

import csv
import io
import json
from html import escape
from pathlib import Path
from typing import Any

import pytest
from statsmodels.stats.proportion import proportion_confint

from judgeaudit.analysis.fmt import NO_TASK_COUNTS
from judgeaudit.analysis.trend import INTERVALS, build_trend, period_figures
from judgeaudit.analysis.trend_alerts import points_of
from judgeaudit.analysis.trend_fmt import render, render_csv
from judgeaudit.analysis.trend_metrics import NOTHING_TO_COUNT, series
from tests.unit.analysis.test_verdicts import expected, make_db


def rate(value: float) -> dict[str, Any]:
    return {"rate": value, "ci_low": value / 2, "ci_high": value * 2, "decisive": 50, "wrong": 5}


def report(cites: tuple[float, float, float]) -> dict[str, Any]:
    """A report as a history kept it before the flag existed: no ``unstable`` key."""
    odds, low, high = cites
    return {
        "pairs": 100, "overall": rate(0.1), "buckets": [],
        "satisfied_but_failed": {"judge": {**rate(0.1), "satisfied": 40},
                                 "user_simulator": {**rate(0.2), "satisfied": 30}},
        "verdicts": {"no_verdict_orders": 0, "orders": 200, "no_verdict_rate": 0.0},
        "style": {"terms": [
            {"feature": "cites_ids", "kind": "process", "odds_ratio": odds, "ci_low": low,
             "ci_high": high, "p_value": 0.001},
            {"feature": "position", "kind": "position", "odds_ratio": 1.5, "ci_low": 1.2,
             "ci_high": 1.9, "p_value": 0.001},
        ]},
    }  # fmt: skip


def test_an_unstable_period_is_flagged_and_a_gap_in_the_series() -> None:
    periods = []
    for name, cites in (("d1", (20.6, 4.48, 94.4)), ("d2", (796.0, 66.7, 9500.0))):
        figures = period_figures(report(cites), {"rate": 0.8, "ci_low": 0.7, "ci_high": 0.9})  # type: ignore[arg-type]
        periods.append({"period": name, "human_disagreement": None, **figures})
    assert [t["unstable"] for p in periods for t in p["style_odds_ratios"]] == [False, True]
    assert periods[1]["style_odds_ratios"][0]["odds_ratio"] == 796.0  # kept, flagged
    drawn = series({"periods": periods})["odds ratio cites_ids"]
    assert drawn[0] == {
        "period": "d1",
        "rate": 20.6,
        "ci_low": 4.48,
        "ci_high": 94.4,
        "n": None,
        "no_interval": None,
    }
    assert drawn[1] == {
        "period": "d2",
        "rate": None,
        "ci_low": None,
        "ci_high": None,
        "n": None,
        "no_interval": None,
    }
    assert set(points_of({"periods": periods})) == {"misselection", "near", "tie_aware"}  # no style


def test_the_no_verdict_share_has_the_reports_task_clustered_interval(tmp_path: Path) -> None:
    """The run of test_verdicts (7 of 34 orders, bunched in two of six tasks) as a period: its
    no-verdict share carries statsmodels' Wilson at the design effect's effective n, wider than
    plain Wilson over 34 independent orders (what the trend printed before), in every format."""
    db = make_db(tmp_path / "audit.db")
    db.execute("UPDATE runs SET status = 'finished', created_at = '2026-11-01'")
    db.close()
    trend = build_trend([str(tmp_path)])
    got = trend["periods"][0]["no_verdict"]
    low, high = expected()
    assert [got["ci_low"], got["ci_high"]] == pytest.approx([low, high], rel=1e-9)
    plain_low, plain_high = proportion_confint(7, 34, method="wilson")
    assert low < plain_low and high > plain_high
    assert got["no_interval"] is None
    assert f"20.6% [{low * 100:.1f}, {high * 100:.1f}]" in render(trend, "table")
    (row,) = [
        r for r in csv.DictReader(io.StringIO(render(trend, "csv"))) if r["metric"] == "no verdict"
    ]
    assert float(row["ci_low"]) == pytest.approx(low) and row["no_interval"] == ""
    assert "clustered by task" in json.loads(render(trend, "json"))["intervals"]["no verdict"]


def test_periods_with_different_reasons_for_no_interval_are_each_said() -> None:
    """The second reviewer: "no verdict has no interval in d1, d2, d3: <d1's reason>" said one
    reason for all when d2 had none to count. Periods of one reason are named together."""
    periods = []
    for name, rate, orders in (("d1", 0.04, 200), ("d2", None, 0), ("d3", 0.05, 100)):
        kept = report((20.6, 4.48, 94.4))
        kept["verdicts"] = {"no_verdict_orders": 0 if rate is None else 8, "orders": orders,
                            "no_verdict_rate": rate, "no_verdict_rate_ci": [None, None]}  # fmt: skip
        figures = period_figures(kept, {"rate": 0.8, "ci_low": 0.7, "ci_high": 0.9})  # type: ignore[arg-type]
        periods.append({"period": name, "human_disagreement": None, "judge_models": ["j"],
                        **figures})  # fmt: skip
    trend = {"periods": periods, "kind": "recorded", "gap_source": "judge", "labels": ["near"],
             "intervals": INTERVALS}  # fmt: skip
    table = render(trend, "table")
    said = f"no verdict has no interval in d1, d3: {NO_TASK_COUNTS}; d2: {NOTHING_TO_COUNT}"
    assert said in table, table


def test_a_period_without_per_task_counts_says_it_has_no_interval() -> None:
    """A history period imported before per-task verdict counts were kept: the report has no
    interval for its share, and every format of the trend says why instead of showing one."""
    periods = []
    for name, ci in (("d1", [0.01, 0.09]), ("d2", [None, None])):
        kept = report((20.6, 4.48, 94.4))
        kept["verdicts"] = {"no_verdict_orders": 8, "orders": 200, "no_verdict_rate": 0.04,
                            "no_verdict_rate_ci": ci}  # fmt: skip
        figures = period_figures(kept, {"rate": 0.8, "ci_low": 0.7, "ci_high": 0.9})  # type: ignore[arg-type]
        periods.append({"period": name, "human_disagreement": None, "judge_models": ["j"],
                        **figures})  # fmt: skip
    trend = {"periods": periods, "kind": "recorded", "gap_source": "judge", "labels": ["near"],
             "intervals": INTERVALS}  # fmt: skip
    assert periods[0]["no_verdict"]["no_interval"] is None
    assert periods[1]["no_verdict"]["no_interval"] == NO_TASK_COUNTS
    table = render(trend, "table")
    assert "4.0% [1.0, 9.0]" in table and "4.0% [no CI]" in table
    assert f"no verdict has no interval in d2: {NO_TASK_COUNTS}" in table
    rows = [
        r for r in csv.DictReader(io.StringIO(render(trend, "csv"))) if r["metric"] == "no verdict"
    ]
    assert [(r["ci_low"], r["no_interval"]) for r in rows] == [("0.01", ""), ("", NO_TASK_COUNTS)]
    assert json.loads(render(trend, "json"))["periods"][1]["no_verdict"]["no_interval"]
    assert escape(NO_TASK_COUNTS) in render(trend, "html")


def test_each_rate_row_has_the_count_it_is_over() -> None:
    """The CSV's ``n`` was empty on every row but misselection, its buckets and no verdict:
    each now has what its rate is over (the report's counts, set by hand here)."""
    given = {**report((2.0, 1.5, 2.7)), "human_review": {"judge_vs_human": {
        "weighted_agreement": 0.8, "weighted_agreement_ci": [0.7, 0.9], "n": 25}}}  # fmt: skip
    consistency = {"rate": 0.8, "ci_low": 0.7, "ci_high": 0.9, "pairs": 90, "consistent": 72}
    figures = period_figures(given, consistency)  # type: ignore[arg-type]
    rows = csv.DictReader(io.StringIO(render_csv({"periods": [{"period": "d1", **figures}]})))
    n = {r["metric"]: r["n"] for r in rows}
    assert n == {"misselection": "50", "tie-aware misselection": "50",
                 "judge satisfied but failed": "40", "user satisfied but failed": "30",
                 "no verdict": "200", "position consistency": "90", "human disagreement": "25",
                 "odds ratio cites_ids": ""}  # fmt: skip

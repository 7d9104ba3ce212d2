"""A rate is printed with its interval or with why it has none (a review): ``with_ci`` printed
a bare rate by default, the trend's human-disagreement row had a rate, no interval and no
reason, and a 0% rate's Wilson lower bound was 1.4e-17 in the CSV and JSON."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from statsmodels.stats.proportion import proportion_confint

from judgeaudit.analysis.clustered import Sums, interval, wilson_float
from judgeaudit.analysis.fmt import with_ci
from judgeaudit.analysis.trend import INTERVALS, period_figures
from judgeaudit.analysis.trend_fmt import render
from judgeaudit.analysis.trend_metrics import series
from tests.unit.analysis.test_trend import report

REASON = "none yet: a stratified bootstrap needs 2 labelled pairs in each stratum it weighs"


def test_a_rate_without_an_interval_says_so_by_default() -> None:
    assert with_ci(0.25, None) == "25.0% [no CI]"
    assert with_ci(0.25, [None, None], "(too few labels)") == "25.0% (too few labels)"
    assert with_ci(0.25, [0.1, 0.4]) == "25.0% [10.0, 40.0]"


@pytest.mark.parametrize("n", [14, 28.5, 200])
def test_a_rate_of_zero_or_one_has_its_exact_bound(n: float) -> None:
    low, high = wilson_float(0.0, n)
    assert low == 0.0 and high == pytest.approx(proportion_confint(0, n, method="wilson")[1])
    low, high = wilson_float(1.0, n)
    assert high == 1.0 and low == pytest.approx(proportion_confint(n, n, method="wilson")[0])
    found = interval(Sums.of([(0.0, 5.0), (0.0, 9.0)]))
    assert found["ci_low"] == 0.0 and str(found["ci_low"]) == "0.0"  # as the CSV writes it


def _period(name: str, ci: list[float] | None, why: str) -> dict[str, Any]:
    kept = report((2.0, 1.5, 2.6))
    kept["verdicts"]["no_verdict_rate_ci"] = [0.0, 0.02]
    kept["human_review"] = {"judge_vs_human": {"weighted_agreement": 0.8, "n": 5,
                                               "weighted_agreement_ci": ci, "interval": why}}  # fmt: skip
    figures = period_figures(kept, {"rate": 0.8, "ci_low": 0.7, "ci_high": 0.9})  # type: ignore[arg-type]
    return {"period": name, "judge_models": ["j"], **figures}


def test_the_trends_human_disagreement_has_its_interval_or_its_reason() -> None:
    periods = [_period("d1", [0.7, 0.9], "stratified bootstrap"), _period("d2", None, REASON)]
    points = series({"periods": periods})["human disagreement"]
    assert points[0]["ci_low"] == pytest.approx(0.1) and points[0]["no_interval"] is None
    assert points[1]["rate"] == pytest.approx(0.2) and points[1]["no_interval"] == REASON
    trend = {"periods": periods, "kind": "recorded", "gap_source": "judge", "labels": ["near"],
             "intervals": INTERVALS}  # fmt: skip
    rows = [r for r in csv.DictReader(io.StringIO(render(trend, "csv")))
            if r["metric"] == "human disagreement"]  # fmt: skip
    assert [r["no_interval"] for r in rows] == ["", REASON]
    assert "20.0% [10.0, 30.0]" in render(trend, "table")

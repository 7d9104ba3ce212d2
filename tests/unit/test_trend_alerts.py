"""The trend's change detector against independent computations (scipy, statsmodels), the
period format, and the bench's false-alarm rate in a small configuration."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import fisher_exact
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import confint_proportions_2indep

from judgeaudit.analysis.stats import fisher_greater
from judgeaudit.analysis.trend_alerts import Point, detect, period_tests, points_of
from judgeaudit.audit.units.period import PeriodError, parse_period, period_of_name

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("k1,n1,k2,n2", [(9, 40, 20, 280), (3, 12, 1, 70), (0, 30, 5, 50)])
def test_one_sided_fisher_equals_scipy(k1: int, n1: int, k2: int, n2: int) -> None:
    expected = fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative="greater").pvalue
    assert fisher_greater(k1, n1, k2, n2) == pytest.approx(expected, rel=1e-9)


def _series(rates: list[tuple[int, int]], deff: float = 1.0) -> list[Point]:
    return [Point(f"2026-11-{i + 1:02d}", k, n, deff) for i, (k, n) in enumerate(rates)]


def test_each_test_is_fisher_on_effective_counts_with_a_newcombe_interval() -> None:
    """By hand: baseline of 3 periods pooled, design effect 2 halves every n, then scipy's
    one-sided Fisher and statsmodels' Newcombe interval on those counts."""
    points = _series([(10, 100), (12, 100), (8, 100), (30, 100)], deff=2.0)
    (test,) = period_tests("misselection", points, baseline=3)
    # effective: baseline 30/300 -> n 150, k 15; period 30/100 -> n 50, k 15
    expected_p = fisher_exact([[15, 35], [15, 135]], alternative="greater").pvalue
    assert test["p_value"] == pytest.approx(expected_p, rel=1e-9)
    low, high = confint_proportions_2indep(15, 50, 15, 150, method="newcomb", compare="diff")
    assert test["rise_ci"] == pytest.approx([low, high], abs=1e-9)
    assert test["rise"] == pytest.approx(0.30 - 0.10)


def test_holm_across_periods_and_metrics_as_statsmodels() -> None:
    overall = _series([(10, 100)] * 5 + [(14, 100), (25, 100), (11, 100)])
    near = _series([(5, 40)] * 5 + [(9, 40), (14, 40), (4, 40)])
    fired, made = detect({"misselection": overall, "near": near}, baseline=5)
    made_tests = period_tests("misselection", overall, 5) + period_tests("near", near, 5)
    assert made == len(made_tests) == 6
    reject, adjusted, _, _ = multipletests([t["p_value"] for t in made_tests], 0.05, "holm")
    expected = {(t["period"], t["metric"]) for t, r in zip(made_tests, reject, strict=True) if r}
    assert {(f["period"], f["metric"]) for f in fired} == expected
    assert ("2026-11-07", "misselection") in expected  # the rise is found ...
    assert all(f["period"] == "2026-11-07" for f in fired)  # ... and nothing else
    by_key = {(t["period"], t["metric"]): a for t, a in zip(made_tests, adjusted, strict=True)}
    for f in fired:
        assert f["p_adjusted"] == pytest.approx(by_key[(f["period"], f["metric"])])


def test_a_fall_and_a_period_too_small_raise_nothing() -> None:
    points = _series([(20, 100)] * 7 + [(2, 100), (5, 6)])
    fired, made = detect({"misselection": points})
    assert fired == [] and made == 1  # the 6-pair period is not tested at all


@pytest.mark.parametrize("good", ["2026-11-03", "2026-11", "2026-W45", "2026-11-03T06:00:00Z"])
def test_periods_accepted(good: str) -> None:
    assert parse_period(good) == good


@pytest.mark.parametrize("bad", ["yesterday", "2026-13", "2026-11-31", "", 20261103, "2026-W60"])
def test_periods_refused_with_an_example(bad: object) -> None:
    with pytest.raises(PeriodError, match="ISO date such as 2026-11-03"):
        parse_period(bad)


def test_a_daily_file_name_is_its_period() -> None:
    assert period_of_name("2026-11-03") == "2026-11-03"
    assert period_of_name("monday") is None


def test_bench_false_alarm_rate_small_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    """bench/trend_alerts.py over 60 seeded drift-free series (the CI configuration): the
    false-alarm rate's Wilson interval reaches down to alpha (it is not above 5%), and a rise of
    0.2 is found in most series, never before it happens in more than a few."""
    spec = importlib.util.spec_from_file_location("trend_bench", REPO / "bench/trend_alerts.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    sys.modules["trend_bench"] = bench
    spec.loader.exec_module(bench)
    found = bench.main(["--series", "60", "--tasks", "30", "--rise", "0.2", "--seed", "3"])
    printed = capsys.readouterr().out
    assert "false alarms (drift-free series with any alert): " in printed and "Wilson" in printed
    from judgeaudit.analysis.stats import wilson

    low, _ = wilson(found["false_alarms"], found["series"])
    assert low is not None and low <= 0.05
    assert found["detected"] >= 0.8
    assert found["early"] <= 0.1 * found["series"]
    assert found["undecided_detected"] >= 0.8, "a judge that stops deciding is caught"


def test_the_alert_action_gates_the_current_judge_against_the_baseline() -> None:
    """The action said `compare OUT DIR --fail-on-rise` (the period's run as A, the baseline
    re-judge as B): a judge that drifted worse then reads as a *fall*, so the gate cannot say
    worse (exit 0 or 5 where the other order exits 3), and a recorded run also needs
    --judge-endpoint to be re-judged. The baseline is run A."""
    from judgeaudit.analysis.trend_alerts import ACTION

    assert "judgeaudit compare DIR OUT --fail-on-rise" in ACTION
    assert "compare OUT DIR" not in ACTION and "--judge-endpoint" in ACTION


def test_an_outage_day_is_neither_tested_nor_pooled_into_the_baseline() -> None:
    """A day where the judge gave no verdict has all-tie pairs (0 wrong of N decisive): pooled,
    it would pull the baseline down and make the next ordinary day look like a rise."""
    measured = {"wrong": 20, "decisive": 100, "design_effect": 1.0, "rate": 0.2}
    outage = {"wrong": 0, "decisive": 100, "design_effect": 1.0, "rate": None,
              "not_measured": "not measured: the judge gave no verdict on any order"}  # fmt: skip
    days = [f"2026-11-{d:02d}" for d in range(1, 9)]
    parts = [measured] * 3 + [outage] * 4 + [measured]
    trend: dict[str, Any] = {"periods": [{"period": d, "misselection": m, "buckets": []}
                         for d, m in zip(days, parts, strict=True)]}  # fmt: skip
    points = points_of(trend)["misselection"]
    assert [(p.wrong, p.decisive) for p in points[3:7]] == [(0, 0)] * 4
    fired, made = detect({"misselection": points})
    # the last day equals the measured baseline (20/100 = 3 × 20/100 pooled): no alert; with
    # the outage pooled the baseline would be 60/700 and 20/100 a rise
    assert fired == [] and made == 1


def test_days_whose_verdicts_all_turn_tie_raise_a_tie_aware_alert() -> None:
    """A new user's monitor, days 8-10 rewritten so every winner is "tie": misselection falls to
    0% and raised nothing; the tie-aware rate ((wrong + tie/2) / decisive) rises to 50%."""
    day = {"wrong": 10, "tie": 20, "decisive": 100, "design_effect": 1.5}
    tie = {"wrong": 0, "tie": 100, "decisive": 100, "design_effect": 1.5}
    days = [f"2026-11-{d:02d}" for d in range(1, 11)]
    trend: dict[str, Any] = {"periods": [{"period": d, "misselection": m, "buckets": []}
                             for d, m in zip(days, [day] * 7 + [tie] * 3, strict=True)]}  # fmt: skip
    series = points_of(trend)
    assert [p.wrong for p in series["tie_aware"]] == [20.0] * 7 + [50.0] * 3  # 10 + 20/2
    fired, made = detect(series)
    assert made == 6 and {(f["period"], f["metric"]) for f in fired} == {
        (d, "tie_aware") for d in days[7:]
    }
    # by hand: effective n = 100 / 1.5 = 67 per day (baseline 467, 93 wrong + tie/2), the day
    # 34 of 67; scipy's one-sided Fisher on those counts, Holm over the 6 tests
    expected = fisher_exact([[34, 33], [93, 374]], alternative="greater").pvalue
    assert fired[0]["p_value"] == pytest.approx(expected, rel=1e-9)

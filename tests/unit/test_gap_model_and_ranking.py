"""The continuous gap model's odds ratio against statsmodels' cluster-robust logit, and
`RANKING MISSELECTED` only when both the success difference and the judge's opposite
preference are significant (exact McNemar and sign test, against scipy)."""

from __future__ import annotations

import math
import sqlite3
import warnings
from typing import Any

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.stats import binomtest

from judgeaudit.analysis.gap_model import gap_model
from judgeaudit.analysis.split import ranking


def _db(rows: list[tuple[str, float, int]]) -> sqlite3.Connection:
    """An audit_pairs table of decisive pairs: (task, capability gap, misselected)."""
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE TABLE audit_pairs (run_id, task_id, success_a, success_b, misselected,"
        " capability_a, capability_b)"
    )
    db.executemany(
        "INSERT INTO audit_pairs VALUES ('r', ?, 1, 0, ?, ?, 0.0)",
        [(task, m, gap) for task, gap, m in rows],
    )
    return db


def test_odds_ratio_per_tenth_of_gap_matches_statsmodels_clustered_logit() -> None:
    rng = np.random.default_rng(4)
    rows, ys, xs, groups = [], [], [], []
    for t in range(40):
        effect = rng.normal(0, 0.6)
        for _ in range(rng.integers(2, 8)):
            gap = round(float(rng.choice([0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.9])), 2)
            p = 1 / (1 + math.exp(-(-0.5 - 3.0 * gap + effect)))
            y = int(rng.random() < p)
            rows.append((f"t{t}", gap, y))
            ys.append(y)
            xs.append(gap / 0.1)
            groups.append(t)
    model = gap_model(_db(rows), "r", "capability")
    X = sm.add_constant(np.array(xs))
    ref = sm.Logit(np.array(ys), X).fit(
        disp=0, cov_type="cluster", cov_kwds={"groups": np.array(groups)}
    )
    assert model["odds_ratio_per_0_1"] == pytest.approx(math.exp(ref.params[1]), rel=1e-6)
    low, high = np.exp(ref.conf_int()[1])
    assert model["ci"] == pytest.approx([low, high], rel=1e-6)
    assert model["p_value"] == pytest.approx(ref.pvalues[1], rel=1e-5)
    assert model["tasks"] == 40 and model["n"] == len(rows)


def test_no_misselection_is_reported_not_fitted() -> None:
    model = gap_model(_db([("t1", 0.1, 0), ("t2", 0.5, 0)]), "r", "capability")
    assert model["odds_ratio_per_0_1"] is None and model["why_not"] == "no misselection"


def _pair(a_only: int, b_only: int, both: int, a_wins: int, b_wins: int) -> dict[str, Any]:
    pairs = a_only + b_only + both
    return {
        "pairs": pairs,
        "decisive": a_only + b_only,
        "success_rate_a": (a_only + both) / pairs,
        "success_rate_b": (b_only + both) / pairs,
        "judge_win_rate_a": a_wins / pairs,
        "judge_win_rate_b": b_wins / pairs,
    }


def test_one_conversation_of_difference_is_not_a_ranking_misselection() -> None:
    # A succeeded alone once more than B (McNemar p = 1): the old flag fired on this.
    found = ranking(_pair(a_only=2, b_only=1, both=8, a_wins=1, b_wins=9))
    assert found["ranking"] == "suggestive" and not found["ranking_misselected"]
    assert found["success_p_value"] == pytest.approx(binomtest(1, 3).pvalue)
    assert found["judge_sign_p_value"] == pytest.approx(binomtest(1, 10).pvalue)


def test_significant_opposite_ranking_is_flagged() -> None:
    found = ranking(_pair(a_only=20, b_only=3, both=5, a_wins=4, b_wins=22))
    assert found["success_p_value"] == pytest.approx(binomtest(3, 23).pvalue)
    assert found["judge_sign_p_value"] == pytest.approx(binomtest(4, 26).pvalue)
    assert max(found["success_p_value"], found["judge_sign_p_value"]) < 0.05
    assert found["ranking"] == "misselected" and found["ranking_misselected"]
    # the same success difference with a judge that agrees: no flag at all
    assert ranking(_pair(20, 3, 5, 22, 4))["ranking"] is None


def test_quasi_separation_is_reported_not_fitted_nor_a_crash() -> None:
    """Every pair at gap 0 judged right, two of eight at gap 0.5 misselected (one history day
    of a small stream): no finite maximum-likelihood slope exists. statsmodels' fit of the same
    rows never converges, its slope growing with every iteration it is given; the report
    crashed on exp() of its interval (exit 70)."""
    rows = [("t0", 0.0, 0), ("t1", 0.5, 0), ("t1", 0.5, 0), ("t2", 0.0, 0)]
    rows += [("t3", 0.5, 0), ("t3", 0.5, 0), ("t4", 0.5, 1), ("t4", 0.5, 1)]
    rows += [("t4", 0.5, 0), ("t4", 0.5, 0)]
    model = gap_model(_db(rows), "r", "capability")
    assert model["odds_ratio_per_0_1"] is None and model["ci"] is None
    assert model["why_not"].startswith("no finite estimate") and model["n"] == 10
    X = sm.add_constant(np.array([gap / 0.1 for _, gap, _ in rows]))
    ys = np.array([m for _, _, m in rows])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its own convergence warnings
        fits = [sm.Logit(ys, X).fit(disp=0, maxiter=n) for n in (35, 400)]
    assert not any(f.mle_retvals["converged"] for f in fits)
    assert fits[1].params[1] > fits[0].params[1] + 0.5  # the slope runs off to infinity


@pytest.mark.parametrize(
    "rows",
    [
        [("t0", 0.3, 1), ("t1", 0.3, 0), ("t0", 0.1, 0), ("t0", 0.1, 1), ("t1", 0.3, 1),
         ("t0", 0.3, 0)],
        [("t0", 0.5, 0), ("t1", 0.3, 1), ("t0", 0.1, 0)],
    ],
    ids=["zero", "negative-by-rounding"],
)  # fmt: skip
def test_a_zero_clustered_variance_gives_no_interval_nor_a_crash(
    rows: list[tuple[str, float, int]],
) -> None:
    """Two tasks whose score contributions cancel: the slope's task-clustered variance is zero
    (computed a hair below zero it crashed math.sqrt, exit 70; at zero it gave a zero-width
    interval). statsmodels' clustered fit of the same rows has a zero or undefined standard
    error too."""
    model = gap_model(_db(rows), "r", "capability")
    assert model["odds_ratio_per_0_1"] is None and model["ci"] is None
    assert model["why_not"] == "no interval: the task-clustered variance is zero (too few tasks)"
    X = sm.add_constant(np.array([gap / 0.1 for _, gap, _ in rows]))
    groups = np.array([int(task[1:]) for task, _, _ in rows])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sm.Logit(np.array([m for _, _, m in rows]), X).fit(
            disp=0, cov_type="cluster", cov_kwds={"groups": groups}
        )
    assert not ref.bse[1] > 1e-7  # zero, or NaN


def test_complete_separation_is_named_not_did_not_converge() -> None:
    """Every pair at gap 0 misselected, none at gap 0.5: Newton runs off to infinity and never
    settles (it said 'did not converge'); statsmodels' fit does not converge either and its
    slope keeps falling with the iterations it is given."""
    rows = [(f"t{i}", 0.0, 1) for i in range(4)] + [(f"t{i + 3}", 0.5, 0) for i in range(11)]
    model = gap_model(_db(rows), "r", "capability")
    assert model["why_not"].startswith("no finite estimate") and model["ci"] is None
    X = sm.add_constant(np.array([gap / 0.1 for _, gap, _ in rows]))
    ys = np.array([m for _, _, m in rows])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = [sm.Logit(ys, X).fit(disp=0, maxiter=n) for n in (50, 400)]
    assert not any(f.mle_retvals["converged"] for f in fits)
    assert fits[1].params[1] < fits[0].params[1] - 0.5  # the slope runs off to minus infinity


def test_a_steep_slope_on_a_wide_gap_scale_is_fitted_as_statsmodels_fits_it() -> None:
    """Rewards from 0 to 10 (an external gap) and a steep but finite effect: the misselected
    and correct pairs' gaps overlap, so the estimate exists and is reported, equal to
    statsmodels' clustered logit (a scale-bound rule rejected it as 'no finite estimate')."""
    rng = np.random.default_rng(11)
    rows = []
    for t in range(60):
        for _ in range(20):
            gap = round(float(rng.uniform(0, 10)), 1)
            p = 1 / (1 + math.exp(-(1.5 - 0.4 * gap / 0.1)))
            rows.append((f"t{t}", gap, int(rng.random() < p)))
    model = gap_model(_db(rows), "r", "capability")
    assert model["why_not"] is None
    X = sm.add_constant(np.array([gap / 0.1 for _, gap, _ in rows]))
    ys, groups = (np.array([m for _, _, m in rows]), np.array([int(t[1:]) for t, _, _ in rows]))
    ref = sm.Logit(ys, X).fit(disp=0, cov_type="cluster", cov_kwds={"groups": groups})
    assert ref.mle_retvals["converged"]
    assert model["odds_ratio_per_0_1"] == pytest.approx(math.exp(ref.params[1]), rel=1e-6)
    assert model["ci"] == pytest.approx(list(np.exp(ref.conf_int()[1])), rel=1e-6)


def test_tiny_random_runs_never_crash_and_report_only_bounded_fits() -> None:
    """Every small run of the kind a history's day holds gets a fit with a proper interval
    around its odds ratio, or a reason; a fit is reported exactly where the misselected and
    correct pairs' gaps overlap (the condition for a finite estimate)."""
    rng = np.random.default_rng(5)
    for _ in range(400):
        rows = [
            (f"t{rng.integers(0, 6)}", float(rng.choice([0.0, 0.1, 0.3, 0.5, 0.9])),
             int(rng.integers(0, 2)))
            for _ in range(int(rng.integers(3, 30)))
        ]  # fmt: skip
        model = gap_model(_db(rows), "r", "capability")
        wrong = [g for _, g, m in rows if m]
        right = [g for _, g, m in rows if not m]
        overlap = bool(wrong and right) and max(wrong) > min(right) and max(right) > min(wrong)
        if model["odds_ratio_per_0_1"] is not None:
            low, high = model["ci"]
            assert overlap and 0 < low < model["odds_ratio_per_0_1"] < high < math.inf
        elif model["why_not"].startswith("no finite estimate"):
            assert not overlap

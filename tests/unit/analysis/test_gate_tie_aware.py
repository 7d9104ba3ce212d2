"""The gate's tie-aware criterion (``paired.tie_aware_change``, ``gate.decide_rows``) against
independent computations: statsmodels' cluster-robust OLS of the per-pair half-point scores,
scipy's t quantile and beta quantile for the bound, and the sign-flip test by enumeration."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from judgeaudit.analysis.gate import decide_rows, gate_lines
from judgeaudit.analysis.paired import tie_aware_change


def _part(seed: int, tie_after: float) -> pd.DataFrame:
    """Decisive pairs over 10 tasks (3-8 pairs each), side A succeeded in about half; run B
    answers "tie" with probability ``tie_after`` (run A about 10% of the time)."""
    rng = np.random.default_rng(seed)
    tasks = np.repeat(np.arange(10), rng.integers(3, 9, size=10))
    n = len(tasks)
    success_a = (rng.random(n) < 0.5).astype(int)
    right = np.where(success_a == 1, "A", "B")
    wrong = np.where(success_a == 1, "B", "A")

    def prefs(tie: float) -> np.ndarray:
        u = rng.random(n)
        return np.where(u < tie, "tie", np.where(u < tie + 0.1, wrong, right))

    before, after = prefs(0.1), prefs(tie_after)
    return pd.DataFrame(
        {
            "task_id": [f"t{t}" for t in tasks],
            "success_a_before": success_a,
            "success_a_after": success_a,
            "judge_pref_before": before,
            "judge_pref_after": after,
            "missel_before": (before == wrong).astype(int),
            "missel_after": (after == wrong).astype(int),
        }
    )


def _score(pref: pd.Series, success_a: pd.Series) -> np.ndarray:
    """Hand rule: 1 wrong, 0 right, 1/2 a tie."""
    right = np.where(success_a == 1, "A", "B")
    return np.where(pref == "tie", 0.5, np.where(pref == right, 0.0, 1.0))


def test_the_tie_aware_change_is_statsmodels_cluster_ols_and_its_bound_scipys_t() -> None:
    import statsmodels.api as sm

    part = _part(3, tie_after=0.3)
    found = tie_aware_change(part)
    d = _score(part["judge_pref_after"], part["success_a_after"]) - _score(
        part["judge_pref_before"], part["success_a_before"]
    )
    fit = sm.OLS(d, np.ones((len(d), 1))).fit(
        cov_type="cluster", cov_kwds={"groups": part["task_id"].to_numpy()}, use_t=True
    )
    assert found["change"] == pytest.approx(fit.params[0])
    low, high = fit.conf_int(alpha=0.05)[0]
    assert (found["ci_low"], found["ci_high"]) == (pytest.approx(low), pytest.approx(high))
    t_upper = fit.params[0] + stats.t.ppf(0.95, 9) * fit.bse[0]
    # rare-step floor: each half step one of 2n; Clopper-Pearson upper from scipy's beta
    n, up, down = len(d), int((2 * d[d > 0]).sum()), int((-2 * d[d < 0]).sum())
    floor = stats.beta.ppf(0.95, up + 1, 2 * n - up) - down / (2 * n)
    assert found["upper"] == pytest.approx(max(t_upper, floor), abs=1e-9)
    assert found["before"] == pytest.approx(
        _score(part["judge_pref_before"], part["success_a_before"]).mean()
    )
    # the exact one-sided sign-flip p, by enumerating the 2^10 sign vectors of the task sums
    sums = (pd.Series(2 * d).groupby(part["task_id"].to_numpy()).sum()).to_numpy()
    hits = [
        float(np.dot(signs, sums)) >= sums.sum() - 1e-9
        for signs in itertools.product((1, -1), repeat=len(sums))
    ]
    assert found["p_value"] == pytest.approx(np.mean(hits))


def _result(tie: dict[str, Any]) -> dict[str, Any]:
    """A gate whose misselection is not worse (it fell), with this tie-aware overall row."""
    overall = {"label": "overall", "n_before": 600, "significant_rise": False, "upper": -0.01,
               "paired": None, "tie_aware": tie}  # fmt: skip
    return {"buckets": [], "overall": overall}


def test_an_always_tie_judge_is_worse_and_the_gate_says_on_what() -> None:
    part = _part(4, tie_after=1.0)
    result = _result(tie_aware_change(part))
    summary = decide_rows(result, 0.02, {})
    assert summary["verdict"] == "worse" and summary["exit_code"] == 3
    assert summary["worse"] == [] and summary["worse_on"] == ["tie-aware"]
    result["gate"] = summary
    assert gate_lines(result)[0] == (
        "gate (margin 2 points): WORSE on the tie-aware rate: ties count half a loss"
    )


def test_not_worse_needs_both_criteria() -> None:
    rose = {"change": 0.01, "n": 600, "upper": 0.025, "p_value": 0.2, "alpha": 0.025}
    summary = decide_rows(_result(rose), 0.02, {})
    assert (summary["verdict"], summary["exit_code"]) == ("inconclusive", 5)
    assert summary["tie_aware"] == "inconclusive"
    held = {**rose, "upper": 0.015}
    assert decide_rows(_result(held), 0.02, {})["exit_code"] == 0
    # its own alpha share: p 0.03 is not a significant rise at 0.025
    assert decide_rows(_result({**rose, "p_value": 0.03}), 0.02, {})["exit_code"] == 5
    assert decide_rows(_result({**rose, "p_value": 0.02}), 0.02, {})["exit_code"] == 3

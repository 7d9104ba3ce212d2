"""The gate's "at this size" line (``gate_size.at_this_size``): the chance that an unchanged
judge passes on both criteria (misselection and the tie-aware rate), against scipy's bivariate
normal at the sign-flip null's moments computed by hand, and the false-alarm bound the line
prints, the Bonferroni sum of the tests that can call an unchanged judge worse."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from scipy import stats

from judgeaudit.analysis.gate import decide_rows, gate_lines
from judgeaudit.analysis.gate_size import both_below
from judgeaudit.analysis.paired import FALSE_WORSE_AT_MOST, tie_aware_change
from tests.unit.analysis.test_gate_tie_aware import _part, _score


@pytest.mark.parametrize(("a", "b", "rho"), [(0.3, -0.4, 0.6), (1.2, 0.8, -0.5), (-1, 2, 0.0)])
def test_both_below_is_scipys_bivariate_normal(a: float, b: float, rho: float) -> None:
    cov = [[1.0, rho], [rho, 1.0]]
    expected = stats.multivariate_normal(mean=[0, 0], cov=cov).cdf([a, b])
    assert both_below(a, b, rho) == pytest.approx(expected, abs=1e-5)


def test_the_null_spread_is_the_sign_flip_moments_of_the_task_sums() -> None:
    part = _part(5, tie_after=0.2)
    null = tie_aware_change(part)["null"]
    n = len(part)
    missel = (part["missel_after"] - part["missel_before"]).groupby(part["task_id"]).sum()
    tie = pd_tie(part)
    # Var(sum e_t S_t) = sum S_t^2 over the 2^G sign vectors: by hand, per task sums
    assert null["se"] == pytest.approx(math.sqrt((tie**2).sum()) / n)
    assert null["correlation"] == pytest.approx(
        (missel * tie).sum() / math.sqrt((missel**2).sum() * (tie**2).sum())
    )
    # misselection's own, on its row: the variance of the sign-flip sum by enumeration of a
    # few tasks' sums (2^4 sign vectors)
    sums = [2, -1, 3, 1]
    totals = [sum(e * s for e, s in zip(signs, sums, strict=True))
              for signs in itertools.product((1, -1), repeat=4)]  # fmt: skip
    assert np.var(totals) == sum(s * s for s in sums)
    assert _paired_null_se(part) == pytest.approx(math.sqrt((missel**2).sum()) / n)


def _paired_null_se(part: Any) -> float:
    from judgeaudit.analysis.paired import _paired

    return float(_paired(part.assign(key="k"))["null_se"])


def pd_tie(part: Any) -> Any:
    d = _score(part["judge_pref_after"], part["success_a_after"]) - _score(
        part["judge_pref_before"], part["success_a_before"]
    )
    return part.assign(d=d).groupby("task_id")["d"].sum()


def _overall(tie_aware: dict[str, Any] | None, null_se: float | None = None) -> dict[str, Any]:
    """649 decisive pairs over 42 tasks, 54 flips, design effect 2.2 (the demo's size)."""
    row = {
        "label": "overall", "n_before": 649, "tasks": 42, "deff": 2.2, "upper": 0.05,
        "null_se": null_se,
        "significant_rise": False, "alpha_share": 0.5,
        "paired": {"flipped_to_misselected": 34, "flipped_to_correct": 20},
    }  # fmt: skip
    if tie_aware is not None:
        row["tie_aware"] = tie_aware
    return row


def _tie_aware(se_t: float, rho: float) -> dict[str, Any]:
    return {
        "n": 649, "change": 0.0, "upper": 0.05, "p_value": 0.5, "alpha": 0.025,
        "null": {"se": se_t, "correlation": rho},
    }  # fmt: skip


def test_an_unchanged_judge_passes_on_both_criteria_less_often_than_on_misselection() -> None:
    se_m, se_t, rho = 0.0062, 0.0075, 0.55
    result = {"buckets": [], "overall": _overall(_tie_aware(se_t, rho), se_m), "pairing": {}}
    summary = decide_rows(result, 0.02, {})
    size = summary["at_this_size"]
    t = stats.t.ppf(0.95, 41)  # the bound's one-sided t quantile over 42 tasks
    alone = stats.norm.cdf(0.02 / se_m - t)
    both = stats.multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]]).cdf(
        [0.02 / se_m - t, 0.02 / se_t - t]
    )
    assert size["pass_unchanged_misselection"] == pytest.approx(alone, abs=1e-6)
    assert size["pass_unchanged"] == pytest.approx(both, abs=1e-5)
    assert size["pass_unchanged"] < alone - 0.05
    text = "\n".join(gate_lines({**result, "gate": summary}))
    assert (
        f"an unchanged judge passes ~{both * 100:.0f}% of the time (both criteria; "
        f"~{alone * 100:.0f}% on misselection alone)"
    ) in text
    # misselection's family (5%) and the tie-aware rate's share (2.5%): at most 7.5%, not 5%
    assert size["false_alarm_at_most"] == pytest.approx(0.05 + 0.025)
    assert size["false_alarm_at_most"] == pytest.approx(FALSE_WORSE_AT_MOST)  # docs/gate.md's
    assert "an unchanged judge is called worse at most 7.5% of the time" in text
    assert "(Bonferroni: 5% misselection + 2.5% the tie-aware rate)" in text


def test_missing_verdicts_add_the_rise_tests_share() -> None:
    """With an order without a verdict in either run, the no-verdict rise test (one-sided
    0.025) can call an unchanged judge worse too: the bound is 5 + 2.5 + 2.5 = 10%."""
    result = {
        "buckets": [],
        "overall": _overall(_tie_aware(0.0075, 0.55), 0.0062),
        "pairing": {},
        "verdicts": {"paired_no_verdict": {"a": 3.0, "b": 5.0}, "failed": []},
    }
    summary = decide_rows(result, 0.02, {})
    assert summary["at_this_size"]["false_alarm_at_most"] == pytest.approx(0.10)
    text = "\n".join(gate_lines({**result, "gate": summary}))
    assert "called worse at most 10% of the time (Bonferroni: 5% misselection + 2.5% the " in text
    assert "+ 2.5% the rise in orders without a verdict)" in text
    none = {**result, "verdicts": {"paired_no_verdict": {"a": 0.0, "b": 0.0}, "failed": []}}
    assert decide_rows(none, 0.02, {})["at_this_size"]["false_alarm_at_most"] == pytest.approx(
        0.075
    )


def test_misselection_alone_is_its_own_figure() -> None:
    """Without the tie-aware row (the bench's rule before it) the line is misselection's alone
    and 5% its bound; a row without its sign-flip null spread plans from Connor's
    sqrt(psi * deff / n)."""
    result = {"buckets": [], "overall": _overall(None), "pairing": {}}
    summary = decide_rows(result, 0.02, {})
    size = summary["at_this_size"]
    se = math.sqrt(54 / 649 * 2.2 / 649)
    expected = stats.norm.cdf(0.02 / se - stats.t.ppf(0.95, 41))
    assert size["pass_unchanged"] == size["pass_unchanged_misselection"]
    assert size["pass_unchanged"] == pytest.approx(expected, abs=1e-6)
    assert size["false_alarm_at_most"] == 0.05
    text = "\n".join(gate_lines({**result, "gate": summary}))
    assert f"an unchanged judge passes ~{expected * 100:.0f}% of the time and a rise" in text
    assert "at most 5% of the time (Bonferroni: 5% misselection)" in text
    assert np.isfinite(size["catch_margin_rise"])

"""The gate's decision over rows (exit codes, the non-blocking small buckets) and its
sample-size line, on fixed rows computed by hand."""

from __future__ import annotations

import math
from typing import Any

import pytest
from scipy import stats

from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.gate import decide_rows, gate_lines


def _row(
    label: str, n: int, tasks: int, up: int, down: int, rise: bool, upper: float
) -> dict[str, Any]:
    return {
        "label": label,
        "n_before": n,
        "tasks": tasks,
        "deff": 2.0,
        "upper": upper,
        "significant_rise": rise,
        "paired": {"flipped_to_misselected": up, "flipped_to_correct": down},
    }


def _result(buckets: list[dict[str, Any]], overall: dict[str, Any]) -> dict[str, Any]:
    return {"buckets": buckets, "overall": overall, "pairing": {}}


def test_a_small_bucket_does_not_block_and_overall_not_worse_passes() -> None:
    result = _result(
        [_row("near", 40, 20, 0, 0, False, 0.07), _row("large", 600, 42, 3, 3, False, 0.01)],
        _row("overall", 640, 42, 3, 3, False, 0.012),
    )
    summary = decide_rows(result, 0.02, {"trials": 2, "cost_per_decisive": None})
    assert [r["verdict"] for r in result["buckets"]] == ["too few pairs to tell", "not worse"]
    assert summary["verdict"] == "not worse" and summary["exit_code"] == 0
    assert result["buckets"][0]["needed"]["pairs"] == ni.min_pairs(0.02) == 149
    text = "\n".join(gate_lines({**result, "gate": summary}))
    assert "does not block on its own" in text and "NOT WORSE" in text


def test_any_worse_row_fails_and_an_undecided_overall_is_inconclusive() -> None:
    worse = _result(
        [_row("near", 200, 30, 20, 2, True, 0.2)], _row("overall", 640, 42, 30, 20, False, 0.05)
    )
    assert decide_rows(worse, 0.02, {})["exit_code"] == 3
    unsure = _result([], _row("overall", 640, 42, 30, 20, False, 0.05))
    summary = decide_rows(unsure, 0.02, {"trials": 2, "cost_per_decisive": 0.001})
    assert summary["verdict"] == "inconclusive" and summary["exit_code"] == 5
    need = unsure["overall"]["needed"]
    psi = 50 / 640

    def passes(pairs: int) -> float:
        """The "at this size" model at ``pairs`` (this row has no sign-flip null moments:
        Connor's spread sqrt(psi deff / n)), t over the tasks at 640/42 pairs per task."""
        t = stats.t.ppf(0.95, math.ceil(42 * pairs / 640) - 1)
        return float(stats.norm.cdf(0.02 / math.sqrt(psi * 2.0 / pairs) - t))

    # the fewest pairs at which it passes an unchanged judge 80% of the time, by hand
    assert passes(need["pairs"]) >= 0.8 > passes(need["pairs"] - 1)
    n0 = need["pairs"] / 2.0  # without clustering
    assert need["tasks"] == math.ceil(need["pairs"] / (640 / 42))
    assert need["cost_usd"] == need["pairs"] * 0.001
    # rho = (deff - 1) / (m - 1) with m = 640/42 pairs per task; 42 tasks < n0 * rho, so more
    # trials over these tasks cannot settle it.
    rho = 1.0 / (640 / 42 - 1)
    assert math.ceil(n0) * rho >= 42 and need["trials"] is None
    line = next(x for x in gate_lines({**unsure, "gate": summary}) if "not enough data" in x)
    assert f"~{need['pairs']} decisive pairs" in line and "would not do it" in line


def test_more_trials_settle_it_when_there_are_enough_tasks() -> None:
    row = _row("overall", 640, 320, 30, 20, False, 0.05)  # 2 pairs per task
    row["deff"] = 1.2  # rho = (1.2 - 1) / (2 - 1) = 0.2
    unsure = _result([], row)
    decide_rows(unsure, 0.02, {"trials": 2})
    need = unsure["overall"]["needed"]
    n0, rho, m = need["pairs"] / 1.2, 0.2, 2.0  # the planned pairs without clustering
    assert n0 * rho < 320, "enough tasks for more trials to help"
    k = need["trials"] / 2  # the trials multiplier
    assert n0 * (1 + (k * m - 1) * rho) <= 320 * k * m, "the design effect at k x m still fits"
    smaller = (need["trials"] - 1) / 2
    assert n0 * (1 + (smaller * m - 1) * rho) > 320 * smaller * m, "and one trial fewer does not"


def test_a_small_bucket_whose_bound_is_below_the_margin_is_explained_not_contradicted() -> None:
    """n=130 with flips mostly to correct: its printed bound (+0.4) is below the 2-point margin,
    yet under 149 pairs it is "too few pairs to tell". The definition line must name the
    pair minimum, and the too-few line must say the bound does not decide such a row (a new
    user read "bound +0.4 … too few pairs" beside "even zero flips cannot bound a rise below
    2 points" as a contradiction)."""
    result = _result(
        [_row("small", 130, 40, 4, 11, False, 0.004), _row("large", 600, 42, 3, 3, False, 0.01)],
        _row("overall", 730, 42, 7, 14, False, 0.007),
    )
    summary = decide_rows(result, 0.02, {"trials": 2, "cost_per_decisive": None})
    assert result["buckets"][0]["verdict"] == "too few pairs to tell"
    text = "\n".join(gate_lines({**result, "gate": summary}))
    assert "not worse = the overall row, of at least 149 decisive pairs, has its one-sided" in text
    assert "is the fewest at which a row can be called not worse at all" in text
    assert "whatever its printed bound" in text
    assert "even zero flips cannot bound" not in text


def test_the_gate_says_its_error_rates_at_this_size() -> None:
    # 649 decisive pairs, 54 flips (8.3%), design effect 2.2, margin 2 points: Connor's
    # Phi((0.02 sqrt(649 / 2.2) - z sqrt(psi)) / sqrt(psi - 0.02^2)), z at 0.975 (the overall
    # row's half of alpha) for catching a 2-point rise; without the tie-aware row (its own
    # test: tests/unit/analysis/test_gate_size.py) passing is misselection's alone.
    overall = _row("overall", 649, 42, 34, 20, False, 0.05)
    overall["deff"] = 2.2
    result = _result([], overall)
    summary = decide_rows(result, 0.02, {"trials": 2, "cost_per_decisive": None})
    psi = 54 / 649
    scale = math.sqrt(psi - 0.02**2)

    def connor(z: float) -> float:
        return float(stats.norm.cdf((0.02 * math.sqrt(649 / 2.2) - z * math.sqrt(psi)) / scale))

    size = summary["at_this_size"]
    # passing: the bound D + t(41) se below the margin, se = sqrt(psi deff / n) under no change
    passes = stats.norm.cdf(0.02 / math.sqrt(psi * 2.2 / 649) - stats.t.ppf(0.95, 41))
    assert size["pass_unchanged"] == pytest.approx(passes)
    assert size["catch_margin_rise"] == pytest.approx(connor(stats.norm.ppf(0.975)))
    assert 0.2 < size["catch_margin_rise"] < size["pass_unchanged"] < 0.4
    text = "\n".join(gate_lines({**result, "gate": summary}))
    assert (
        f"an unchanged judge passes ~{size['pass_unchanged'] * 100:.0f}% of the time and a rise "
        f"of 2 points is called worse ~{size['catch_margin_rise'] * 100:.0f}% of the time"
    ) in text
    assert "an unchanged judge is called worse at most 5% of the time" in text
    unflipped = _result([], _row("overall", 649, 42, 0, 0, False, 0.005))
    assert decide_rows(unflipped, 0.02, {})["at_this_size"] is None  # nothing to plan from


def test_under_the_fewest_pairs_the_line_says_the_gate_cannot_pass() -> None:
    # 140 decisive pairs (under the 149 a 2-point margin needs), 3 flips: Connor would say an
    # unchanged judge passes about half the time, but such a row is never called not worse.
    overall = _row("overall", 140, 30, 2, 1, False, 0.05)
    overall["alpha_share"] = 1.0  # the overall row alone in its family: all of alpha
    result = _result([], overall)
    summary = decide_rows(result, 0.02, {})
    size = summary["at_this_size"]
    assert size["pass_unchanged"] == 0.0 and size["catch_alpha"] == 0.05
    text = "\n".join(gate_lines({**result, "gate": summary}))
    assert "an unchanged judge cannot pass under 149 decisive pairs" in text
    assert "the rise at alpha 0.05)" in text

"""The pairs the gate asks for and the pass chance it prints are one model (twenty-second
session): ``pairs_needed`` used Connor's z model and the "at this size" line a sign-flip t model,
so after adding the pairs the "not enough data" line asked for, the line could read an unchanged
judge passing under 80% of the time. Checked against scipy at the planned size, by hand-scaled
standard errors."""

from __future__ import annotations

import math
from typing import Any

import pytest
from scipy import stats

from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.gate import decide_rows, gate_lines
from judgeaudit.analysis.gate_size import at_this_size
from tests.unit.analysis.test_gate_size import _overall, _tie_aware

SE_M, SE_T, RHO = 0.0165, 0.018, 0.8  # about the demo's: 649 pairs, 42 tasks, ~22% passing


def _scipy_pass(pairs: int) -> float:
    """Both bounds below 2 points at ``pairs`` pairs, the same 15.45 pairs per task: each
    standard error times sqrt(649 / pairs), t over the tasks that gives, scipy's normal."""
    shrink = math.sqrt(649 / pairs)
    t = stats.t.ppf(0.95, math.ceil(42 * pairs / 649) - 1)
    cov = [[1, RHO], [RHO, 1]]
    limits = [0.02 / (SE_M * shrink) - t, 0.02 / (SE_T * shrink) - t]
    return float(stats.multivariate_normal(mean=[0, 0], cov=cov).cdf(limits))


def _gated() -> dict[str, Any]:
    result: dict[str, Any] = {
        "buckets": [], "overall": _overall(_tie_aware(SE_T, RHO), SE_M), "pairing": {},
    }  # fmt: skip
    result["gate"] = decide_rows(result, 0.02, {"trials": 2})
    return result


def test_adding_the_pairs_asked_for_reads_at_least_80_percent_on_the_printed_line() -> None:
    result = _gated()
    assert result["gate"]["verdict"] == "inconclusive"
    planned = result["overall"]["needed"]["pairs"]
    # the printed line's model, run again at the planned size: at least 80%
    grown = {**result["overall"], "n_before": planned}
    grown["null_se"] = SE_M * math.sqrt(649 / planned)
    grown["tasks"] = math.ceil(42 * planned / 649)
    grown["tie_aware"] = _tie_aware(SE_T * math.sqrt(649 / planned), RHO)
    size = at_this_size(grown, 0.02)
    assert size is not None and size["pass_unchanged"] >= 0.80
    # and the fewest such: scipy's figure crosses 80% there
    assert _scipy_pass(planned) >= 0.80 - 1e-4 > _scipy_pass(planned - 1) - 1e-4
    assert _scipy_pass(planned - 5) < 0.80
    # Connor's z model (the figure printed before) falls short of it by the printed model
    connor = ni.pairs_needed(54 / 649, 0.02, 2.2)
    assert connor < planned and _scipy_pass(connor) < 0.75
    line = next(x for x in gate_lines(result) if "not enough data" in x)
    assert f"an unchanged judge passes 80% of the time within 2 points (the 'at this size' model) at ~{planned} decisive pairs" in line, line  # fmt: skip


def test_a_bucket_says_which_figure_is_the_floor_and_which_settles_it() -> None:
    bucket = {
        **_overall(None, 0.05), "label": "near", "n_before": 45, "tasks": 33,
        "paired": {"flipped_to_misselected": 4, "flipped_to_correct": 4},
    }  # fmt: skip
    result: dict[str, Any] = {"buckets": [bucket], "overall": _overall(None, SE_M), "pairing": {}}
    result["gate"] = decide_rows(result, 0.02, {})
    from judgeaudit.analysis.gate import verdict_text

    need = bucket["needed"]["pairs"]
    assert need > 149
    assert (
        verdict_text(bucket) == f"too few pairs to tell (under the floor of 149; ~{need} to settle)"
    )
    text = "\n".join(gate_lines(result))
    assert (
        "the floor, 149 decisive pairs, is the fewest at which a row can be called not worse"
        in text
    )
    assert "'~N to settle' is how many it takes at the row's flips" in text


@pytest.mark.parametrize("flips", [0])
def test_a_row_without_flips_needs_only_the_floor(flips: int) -> None:
    bucket = {
        **_overall(None, 0.0), "label": "near", "n_before": 45, "tasks": 33,
        "paired": {"flipped_to_misselected": flips, "flipped_to_correct": flips},
    }  # fmt: skip
    result: dict[str, Any] = {"buckets": [bucket], "overall": _overall(None, SE_M), "pairing": {}}
    result["gate"] = decide_rows(result, 0.02, {})
    from judgeaudit.analysis.gate import verdict_text

    assert verdict_text(bucket) == "too few pairs to tell (under the floor of 149)"

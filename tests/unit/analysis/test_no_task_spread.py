"""A paired change whose tasks all moved alike (or whose flips cancelled within every task) has a
task-clustered standard error of 0: its interval was printed as ``[+5.0, +5.0]``, a change
known exactly. It has no interval now, says why, and its bound is the exact (Clopper-Pearson)
floor, computed here with scipy's beta quantile."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from scipy import stats

from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.fmt import NO_TASK_SPREAD, change_interval, row_moved
from judgeaudit.analysis.paired import _paired, fell, tie_aware_change


def test_every_task_moved_alike_has_no_interval_and_the_exact_bound() -> None:
    # 4 tasks of 5 pairs, one pair of each flipped to misselected: S_t = 1 = D n_t everywhere
    spread = ni.clustered([1, 1, 1, 1], [5, 5, 5, 5])
    assert spread.change == pytest.approx(0.2)
    assert (spread.se, spread.low, spread.high, spread.upper) == (None, None, None, None)
    floor = stats.beta.ppf(0.95, 5, 16)  # Clopper-Pearson one-sided upper for 4 of 20
    assert ni.ni_bound(spread, 4, 0) == pytest.approx(floor, rel=1e-6)


def test_flips_that_cancel_within_each_task_have_no_interval() -> None:
    # each of 3 tasks: one pair to misselected, one back: every sum 0, six pairs moved
    spread = ni.clustered([0, 0, 0], [10, 10, 10])
    assert spread.change == 0 and spread.low is None
    floor = stats.beta.ppf(0.95, 4, 27) - 3 / 30
    assert ni.ni_bound(spread, 3, 3) == pytest.approx(floor, rel=1e-6)


def test_a_spread_between_tasks_still_gives_the_t_interval() -> None:
    spread = ni.clustered([2, 0, 1, 1], [5, 5, 5, 5])
    assert spread.se is not None and spread.low is not None and spread.high is not None
    assert spread.low < spread.change < spread.high


def _moved_alike(tasks: int = 3, per_task: int = 4, to_correct: bool = False) -> pd.DataFrame:
    """``tasks`` tasks of ``per_task`` decisive pairs (side A succeeded); in each, one pair
    flips: run B picks the failed side where run A picked right (or, ``to_correct``, the other
    way), so every task's change is the same."""
    rows = []
    for task in range(tasks):
        for i in range(per_task):
            before, after = ("B", "A") if to_correct and i == 0 else ("A", "A")
            if not to_correct and i == 0:
                after = "B"
            rows.append(
                {
                    "task_id": f"t{task}",
                    "key": f"t{task}/{i}",
                    "success_a_before": 1,
                    "success_a_after": 1,
                    "judge_pref_before": before,
                    "judge_pref_after": after,
                    "missel_before": int(before == "B"),
                    "missel_after": int(after == "B"),
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("tasks", "falls"), [(20, True), (4, False)])
def test_a_fall_is_the_rows_sign_flip_test_not_its_interval(tasks: int, falls: bool) -> None:
    """Every task one flip to correct: no interval, but 20 such tasks are a fall (exact
    one-sided sign-flip p = 2^-20, by hand) and 4 are not (p = 1/16 > 0.025); the CR1
    interval's [D, D] had flagged both."""
    row = _paired(_moved_alike(tasks, 5, to_correct=True))
    assert row["ci_high"] is None and row["change"] == pytest.approx(-0.2)
    assert row["p_fall"] == pytest.approx(0.5**tasks)
    assert fell(row) is falls
    assert row["p_value"] == 1.0  # no rise


def test_a_spread_too_small_for_floats_is_still_a_spread() -> None:
    """At 100,000 pairs the residual of a real spread is ~1e-10: the test is exact, in integers
    (a review)."""
    spread = ni.clustered([25000, 24999], [50001, 49999])
    assert spread.se is not None and spread.se > 0


def test_compare_says_why_a_moved_row_has_no_interval() -> None:
    tie = tie_aware_change(_moved_alike())
    assert tie["change"] == pytest.approx(0.25)
    assert tie["ci_low"] is None and tie["ci_high"] is None
    moved = tie["half_steps_up"] + tie["half_steps_down"]
    assert change_interval(tie, moved) == NO_TASK_SPREAD
    # the bound: Clopper-Pearson over the 24 half steps, 6 of them up (scipy)
    assert tie["upper"] == pytest.approx(stats.beta.ppf(0.95, 7, 18), rel=1e-6)


def test_a_row_without_flips_still_says_no_pair_flipped() -> None:
    flips = {"flipped_to_misselected": 0, "flipped_to_correct": 0}
    row: dict[str, Any] = {"ci_low": None, "ci_high": None, "n_before": 12, "tasks": 3}
    row["paired"] = flips
    assert change_interval(row, row_moved(row)) == "(no pair flipped)"

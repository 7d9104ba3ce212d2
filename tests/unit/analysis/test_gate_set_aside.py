"""A misselection rise that comes from run B deciding pairs run A tied (``gate_ties``), against
hand counts: set aside when the tie-aware rate fell significantly, B got more of A's ties right
than wrong and nothing rose where both decided; kept "worse" otherwise."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
import pytest

from judgeaudit.analysis.gate import decide_rows, gate_lines
from judgeaudit.analysis.paired import _paired, gate, tie_aware_change

#: one task's pairs as (run A, run B) states: R right, T tie, W wrong
Pattern = list[tuple[str, str]]


def _part(pattern: Pattern, tasks: int) -> pd.DataFrame:
    """``tasks`` tasks of the same pairs; side A succeeded in every pair (A is right)."""
    pref = {"R": "A", "T": "tie", "W": "B"}
    rows = [
        {"task_id": f"t{t}", "key": f"t{t}/t0/p{i}", "success_a_before": 1,
         "success_a_after": 1, "judge_pref_before": pref[a], "judge_pref_after": pref[b],
         "missel_before": int(a == "W"), "missel_after": int(b == "W")}
        for t in range(tasks) for i, (a, b) in enumerate(pattern)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _gate(part: pd.DataFrame, aside: bool = True) -> dict[str, Any]:
    overall = {"label": "overall", **_paired(part), "tie_aware": tie_aware_change(part)}
    if not aside:  # the rule before: no tie-aware fall, so nothing is set aside
        overall["tie_aware"].pop("p_fall")
    gate([], overall)
    result = {"buckets": [], "overall": overall}
    result["gate"] = decide_rows(result, 0.02, {"trials": None, "cost_per_decisive": None})
    return result


#: The new user's case in small: per task 4 pairs run A decided right (B too) and 6 it tied,
#: of which run B gets 5 right and 1 wrong.
USER: Pattern = [("R", "R")] * 4 + [("T", "R")] * 5 + [("T", "W")]


def test_the_counts_and_the_change_where_both_decided_are_the_hand_ones() -> None:
    pattern = [("R", "R"), ("R", "W"), ("W", "R"), ("W", "T"), ("T", "R"), ("T", "W"), ("T", "T")]
    moved = _paired(_part(pattern * 2, 3))["decided"]
    # per task: 2 x 7 pairs; A tied 2 x 3 of 14; newly decided 2 right, 2 wrong; 2 newly tied
    assert moved["ties_before"] == pytest.approx(6 / 14)
    assert (moved["newly_right"], moved["newly_wrong"], moved["newly_tied"]) == (6, 6, 6)
    # both decided: R->R, R->W, W->R twice per task: change (1 - 1) / 3 = 0
    assert moved["both_decided"] == 18 and moved["change"] == 0.0
    assert (moved["flipped_to_misselected"], moved["flipped_to_correct"]) == (6, 6)


def test_the_new_users_case_is_not_worse_and_says_why() -> None:
    result = _gate(_part(USER, 40))
    overall, summary = result["overall"], result["gate"]
    # misselection 0% -> 10% (1 of 10 per task), significant: p = 2^-40 by hand
    assert overall["change"] == pytest.approx(0.1)
    assert overall["p_value"] == pytest.approx(0.5**40)
    # the tie-aware rate: A (6 ties) 6/20 = 30%, B (1 wrong) 10%: -20 points; its fall 2^-40
    tie = overall["tie_aware"]
    assert (tie["before"], tie["after"]) == (pytest.approx(0.3), pytest.approx(0.1))
    assert tie["p_fall"] == pytest.approx(0.5**40) and tie["p_value"] == 1.0
    assert summary["verdict"] == "not worse" and summary["exit_code"] == 0
    assert summary["decided_on"] == ["misselection where both decided", "tie-aware"]
    assert summary["set_aside"] == ["overall"] and summary["worse_on"] == []
    # where both decided: 160 pairs, no flips: Clopper-Pearson 1 - 0.05^(1/160) = 1.85%
    assert overall["decided"]["upper"] == pytest.approx(1 - 0.05 ** (1 / 160))
    line = gate_lines(result)[0]
    assert line.startswith("gate (margin 2 points): NOT WORSE: misselection rose +10.0 pts ")
    assert "because run B decides pairs run A tied (A tied 60.0% of the decisive pairs" in line
    assert "B decided 240 of them, 200 right and 40 wrong" in line
    assert "the tie-aware rate fell -20.0 pts" in line and line.endswith("-> not worse")
    # the rule before called it worse
    before = _gate(_part(USER, 40), aside=False)["gate"]
    assert before["verdict"] == "worse" and before["decided_on"] == ["misselection"]


def test_a_judge_wrong_on_more_than_half_of_its_new_decisions_is_still_worse() -> None:
    """Per task: run A wrong on 2, tied on 6, right on 2; run B fixes the two wrong ones and
    decides A's six ties, 4 wrong and 2 right: misselection +20 points while the tie-aware rate
    falls 10, but the new decisions are wrong more than half the time, so the rise stands."""
    pattern = [("W", "R")] * 2 + [("T", "W")] * 4 + [("T", "R")] * 2 + [("R", "R")] * 2
    result = _gate(_part(pattern, 40))
    tie = result["overall"]["tie_aware"]
    # tie-aware: A (2 + 6/2) / 10 = 50%, B 4/10 = 40%: it fell, significantly (2^-40)
    assert tie["change"] == pytest.approx(-0.1) and tie["p_fall"] == pytest.approx(0.5**40)
    # misselection: 20% -> 40%
    assert result["overall"]["change"] == pytest.approx(0.2)
    assert result["gate"]["verdict"] == "worse" and result["gate"]["set_aside"] == []
    assert result["gate"]["decided_on"] == ["misselection"]
    assert not result["overall"]["set_aside"]


def test_a_judge_that_got_worse_where_both_decided_is_still_worse() -> None:
    """It decides A's ties well (5 right, 1 wrong) but turns one of A's four right picks wrong:
    the tie-aware rate falls, yet misselection rose where both decided (p = 2^-40)."""
    pattern = [("R", "R")] * 3 + [("R", "W")] + [("T", "R")] * 5 + [("T", "W")]
    result = _gate(_part(pattern, 40))
    assert result["overall"]["tie_aware"]["p_fall"] < 0.025
    assert result["overall"]["decided"]["p_value"] == pytest.approx(0.5**40)
    assert result["gate"]["verdict"] == "worse" and not result["overall"]["set_aside"]


def test_nothing_is_set_aside_without_a_significant_fall_of_the_tie_aware_rate() -> None:
    """Three tasks only: the fall's exact p is 2^-3 = 0.125 > 0.025, the rise is kept."""
    result = _gate(_part(USER * 10, 3))
    assert result["overall"]["tie_aware"]["p_fall"] == pytest.approx(0.125)
    assert result["overall"]["verdict"] != "not worse" and not result["overall"]["set_aside"]


def test_the_fall_p_is_the_exact_sign_flip_of_the_task_sums() -> None:
    """Ten tasks with their own mixes of new decisions: the fall's p by enumerating 2^10 signs."""
    rng = np.random.default_rng(5)
    parts = []
    for t in range(10):
        states = [("T", "R" if rng.random() < 0.6 else "W") for _ in range(int(rng.integers(3, 8)))]
        one = _part(states, 1)
        parts.append(one.assign(task_id=f"t{t}", key=f"t{t}/" + one["key"]))
    part = pd.concat(parts, ignore_index=True)
    score = {"A": 0, "tie": 1, "B": 2}
    d = part["judge_pref_after"].map(score) - part["judge_pref_before"].map(score)
    sums = d.groupby(part["task_id"]).sum().to_numpy()
    hits = [
        float(np.dot(signs, sums)) <= sums.sum() + 1e-9
        for signs in itertools.product((1, -1), repeat=len(sums))
    ]
    assert tie_aware_change(part)["p_fall"] == pytest.approx(sum(hits) / 2**10)


def test_a_rise_kept_beside_a_fall_of_the_tie_aware_rate_says_why() -> None:
    """The leaderboard ranks such a run B above run A (its tie-aware rate is lower), so the
    verdict line says why the gate still calls it worse."""
    wrong_half = [("W", "R")] * 2 + [("T", "W")] * 4 + [("T", "R")] * 2 + [("R", "R")] * 2
    line = gate_lines(_gate(_part(wrong_half, 40)))[0]
    assert line.startswith(
        "gate (margin 2 points): WORSE in overall (the tie-aware rate fell -10.0 pts"
    )
    assert (
        "so judgeaudit judges ranks run B above run A; the misselection rise stands: run B got 160 of"
        in (line)
    )
    assert "the 240 pairs run A tied and B decided wrong (not fewer than right))" in line
    turned = [("R", "R")] * 3 + [("R", "W")] + [("T", "R")] * 5 + [("T", "W")]
    line = gate_lines(_gate(_part(turned, 40)))[0]
    assert "stands: where both decided (160 pairs) misselection rose +25.0 pts (p=9.09e-13))" in (
        line
    )


def test_a_bucket_worse_on_every_measure_is_not_set_aside_by_the_overall_fall() -> None:
    """A review: the overall tie-aware rate fell (other buckets), and one bucket had four
    both-decided flips to wrong on four tasks (p 1/16: not significant, too few tasks) beside
    A's ties split 4 right, 3 wrong; it was set aside and the gate passed. Its own tie-aware
    numerator rose by 4 + 3/2 - 4/2 = 3.5 pairs, so its "worse" stands."""
    from judgeaudit.analysis.gate_ties import set_aside

    bucket = _part([("R", "W")], 4)
    ties = _part([("T", "R")] * 4 + [("T", "W")] * 3, 1).assign(task_id="t9")
    moved = _paired(pd.concat([bucket, ties], ignore_index=True))["decided"]
    assert (moved["newly_right"], moved["newly_wrong"]) == (4, 3)
    assert moved["p_value"] == pytest.approx(1 / 16)  # not below 0.05: condition 3 holds
    assert moved["tie_aware_halves"] == 7  # +8 flips to wrong, -4 tie to right, +3 tie to wrong
    row = {"verdict": "worse", "decided": moved}
    assert not set_aside(row, True, 0.02) and row["verdict"] == "worse"

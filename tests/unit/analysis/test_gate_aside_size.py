"""On a set-aside comparison the "at this size" line is over the pairs misselection was judged
on (twenty-second session): it printed the chance of passing an unchanged judge over every
decisive pair, rises from run A's ties included (~3% on the position-biased judge's demo),
where the verdict rested on the pairs both runs decided."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy import stats

from judgeaudit.analysis.gate import gate_lines
from tests.unit.analysis.test_gate_set_aside import USER, Pattern, _gate, _part


def test_the_line_plans_from_the_pairs_both_runs_decided() -> None:
    # per task: A right on 4 (B keeps 3, turns 1 wrong), A wrong on 1 (B fixes it), A's five
    # ties B decides, 4 right and 1 wrong: 30 tasks, the rise set aside, 5 both decided
    pattern: Pattern = [("R", "R")] * 3 + [("R", "W"), ("W", "R")] + [("T", "R")] * 4
    pattern += [("T", "W")]
    result = _gate(_part(pattern, 30))
    assert result["gate"]["set_aside"] == ["overall"]
    size = result["gate"]["at_this_size"]
    assert size["where_both_decided"] and size["pairs"] == 150
    # by hand: 2 flips of 5 per task (each task's sum 0)
    assert size["discordance"] == pytest.approx(2 / 5)
    # the tie-aware criterion still counts in the false-alarm bound (7.5%, not 5%)
    assert size["false_alarm_at_most"] == pytest.approx(0.075)
    line = next(x for x in gate_lines(result) if x.startswith("  at this size"))
    assert line.startswith("  at this size (150 pairs both runs decided, 40.0% flipping")
    assert "an unchanged judge's misselection there passes ~" in line
    assert "(the tie-aware rate, over every decisive pair, must pass too)" in line


def test_the_pass_chance_is_misselection_over_the_pairs_both_decided() -> None:
    # alternate tasks: one turns a right pick wrong, the next fixes a wrong one (sums +1, -1)
    up: Pattern = [("R", "R")] * 3 + [("R", "W")] + [("T", "R")] * 4 + [("T", "W")]
    down: Pattern = [("R", "R")] * 3 + [("W", "R")] + [("T", "R")] * 4 + [("T", "W")]
    part = _part(up, 40)
    other = _part(down, 40).assign(
        task_id=lambda f: f["task_id"] + "b", key=lambda f: f["key"] + "b"
    )

    result = _gate(pd.concat([part, other], ignore_index=True))
    assert result["gate"]["set_aside"] == ["overall"]
    size = result["gate"]["at_this_size"]
    # 80 tasks x 4 pairs both decided = 320; per-task sums +-1: null se sqrt(80) / 320
    assert size["pairs"] == 320
    se = math.sqrt(80) / 320
    expected = stats.norm.cdf(0.02 / se - stats.t.ppf(0.95, 79))
    assert size["pass_unchanged_misselection"] == pytest.approx(expected, abs=1e-6)
    line = next(x for x in gate_lines(result) if x.startswith("  at this size"))
    assert f"misselection there passes ~{expected * 100:.0f}% of the time" in line


def test_without_a_flip_where_both_decided_it_says_why_no_chance_is_printed() -> None:
    result = _gate(_part(USER, 40))
    assert result["gate"]["at_this_size"] is None
    line = next(x for x in gate_lines(result) if x.startswith("  at this size"))
    assert "misselection was judged over the 160 pairs both runs decided, and none" in line

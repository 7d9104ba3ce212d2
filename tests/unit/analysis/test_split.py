"""An agent pair's success and judge-win shares and a judge's swap consistency carry the report's
interval (Wilson at the task design effect's effective n), checked against statsmodels: the
design effect from an intercept-only OLS's cluster-robust over plain variance, then
``proportion_confint(method="wilson")`` at n / deff. Each shown in the text report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from judgeaudit.analysis.report import build_report, render
from tests.unit.test_split_figures import _db, _pair, _statsmodels_interval

#: (task, success A, success B, judge's verdict, swapped): tasks of 1 to 5 pairs, so the pairs
#: of a task are clustered (task t3 fails A every time, t1 never)
PAIRS = [
    ("t1", 1, 0, "A", True), ("t1", 1, 0, "A", True), ("t1", 1, 1, "tie", True),
    ("t1", 1, 0, "A", False), ("t1", 1, 0, "B", True),
    ("t2", 1, 1, "B", True), ("t2", 0, 1, "B", True),
    ("t3", 0, 1, "B", True), ("t3", 0, 1, "B", True), ("t3", 0, 1, "tie", True),
    ("t3", 0, 0, "A", False),
    ("t4", 1, 0, "tie", True),
    ("t5", 1, 1, "A", True), ("t5", 0, 1, "A", True), ("t5", 1, 0, "tie", False),
    ("t6", 1, 0, "B", True), ("t6", 1, 1, "A", True),
]  # fmt: skip


def _rows() -> list[dict[str, Any]]:
    rows = []
    for i, (task, sa, sb, pref, swapped) in enumerate(PAIRS):
        extra: dict[str, Any] = {} if swapped else {"pref_ba": None, "consistent": None}
        rows.append(_pair(i, task, sa, sb, pref, **extra))
    return rows


def _reference(values: list[int], tasks: list[str]) -> list[float]:
    low, high = _statsmodels_interval(
        np.array(values, dtype=float), np.unique(tasks, return_inverse=True)[1]
    )
    return [low, high]


@pytest.fixture
def report(tmp_path: Path) -> Any:
    return build_report(_db(tmp_path, _rows()))


def test_agent_pair_shares_have_statsmodels_intervals(report: Any) -> None:
    (pair,) = report["agent_pairs"]
    tasks = [p[0] for p in PAIRS]
    columns = {
        "success_rate_a": [p[1] for p in PAIRS],
        "success_rate_b": [p[2] for p in PAIRS],
        "judge_win_rate_a": [int(p[3] == "A") for p in PAIRS],  # over every pair, ties too
        "judge_win_rate_b": [int(p[3] == "B") for p in PAIRS],
    }
    for name, values in columns.items():
        assert pair[name] == pytest.approx(sum(values) / len(PAIRS)), name
        want = _reference(values, tasks)
        assert pair[f"{name}_ci"] == pytest.approx(want, rel=1e-9), name
    # A's success is clustered (design effect ~3.1): wider than Wilson over 17 independent pairs
    low, high = pair["success_rate_a_ci"]
    plain = proportion_confint(sum(columns["success_rate_a"]), len(PAIRS), method="wilson")
    assert high - low > 1.5 * (plain[1] - plain[0])
    text = render(report, "table")
    assert "intervals: Wilson with a task design effect" in text.split("agent pairs")[1]
    assert f"95% CI success A [{low:.2f}, {high:.2f}], B " in text and "(of 17 pairs)" in text
    assert f"{pair['judge_win_rate_a']:.2f} [" in render(report, "md")


def test_swap_consistency_has_a_statsmodels_interval_over_swapped_pairs(report: Any) -> None:
    (bias,) = report["position_bias"]
    swapped = [p for p in PAIRS if p[4]]
    consistent = [int(p[3] != "tie") for p in swapped]  # the fixture's rule: a tie disagreed
    assert bias["pairs"] == len(swapped) == 14
    assert bias["consistency_rate"] == pytest.approx(sum(consistent) / len(swapped))
    want = _reference(consistent, [p[0] for p in swapped])
    assert bias["consistency_rate_ci"] == pytest.approx(want, rel=1e-9)
    low, high = want
    assert f"swap-consistent 78.6% [{low * 100:.1f}, {high * 100:.1f}] (" in render(report, "table")

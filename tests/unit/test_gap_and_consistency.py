"""Correctness fixes: exact gaps on bin edges, default external bins, the declared gap source in
the table header, and two unparsable orders never counting as swap-consistent."""

from __future__ import annotations

from typing import cast

import pandas as pd

from judgeaudit.analysis import metrics
from judgeaudit.analysis.frame import LABELS_ZH, default_bins, gap_series
from judgeaudit.analysis.report import bucket_lines
from judgeaudit.analysis.report_types import Report
from judgeaudit.audit.units.judging import PairJudgement


def _frame(**columns: list[object]) -> pd.DataFrame:
    n = len(next(iter(columns.values())))
    base: dict[str, list[object]] = {
        "pair_id": [f"p{i}" for i in range(n)],
        "success_a": [1] * n,
        "success_b": [0] * n,
        "misselected": [0] * n,
        "judge_score_a": [None] * n,
        "judge_score_b": [None] * n,
        "capability_a": [0.5] * n,
        "capability_b": [0.5] * n,
        "reward_a": [None] * n,
        "reward_b": [None] * n,
    }
    base.update(columns)
    return pd.DataFrame(base)


def test_judge_score_gap_on_a_bin_edge_lands_in_the_lower_bucket() -> None:
    # |4.8 - 4.6| is 0.20000000000000018 in floating point; the gap is 0.2, so "near".
    pairs = _frame(judge_score_a=[4.8, 4.7, 1.5], judge_score_b=[4.6, 4.5, 1.0])
    assert gap_series(pairs, "judge").tolist() == [0.2, 0.2, 0.5]
    rows = metrics.buckets(pairs, "judge", [-0.01, 0.2, 0.5, 1.0, 5.0], LABELS_ZH)
    assert [b["pairs"] for b in rows] == [2, 1, 0, 0]


def test_capability_gap_on_a_bin_edge_agrees_with_the_stored_reward_gap() -> None:
    pairs = _frame(capability_a=[0.833333, 0.45], capability_b=[0.333333, 0.15])
    assert gap_series(pairs, "capability").tolist() == [0.5, 0.3]


def test_default_external_bins_put_a_zero_one_reward_gap_in_large() -> None:
    pairs = _frame(reward_a=[1.0, 1.0, 0.0], reward_b=[0.0, 1.0, 0.0])
    bins = default_bins("external", pairs)
    rows = metrics.buckets(pairs, "external", bins, LABELS_ZH)
    by_label = {b["label"]: b["pairs"] for b in rows}
    assert by_label == {"近同": 2, "小差": 0, "中差": 0, "大差": 1}


def test_default_external_bins_scale_to_rewards_beyond_one() -> None:
    pairs = _frame(reward_a=[10.0, 0.0], reward_b=[0.0, 0.0])
    assert default_bins("external", pairs) == [-0.01, 1.5, 3.0, 5.0, 10.0]
    rows = metrics.buckets(pairs, "external", default_bins("external", pairs), LABELS_ZH)
    assert [b["pairs"] for b in rows] == [1, 0, 0, 1]


def test_out_of_range_and_missing_gaps_are_counted_not_dropped() -> None:
    pairs = _frame(judge_score_a=[4.0, 5.0, None], judge_score_b=[4.0, 0.0, 3.0])
    assert metrics.coverage(pairs, "judge", [-0.01, 0.2, 1.0]) == {
        "no_gap": 1,
        "outside_bins": 1,
    }


def test_table_header_names_the_declared_gap_source() -> None:
    report = {
        "gap_source": "judge",
        "buckets": [],
        "satisfied_but_failed": {
            "judge": {"rate": None, "failed": 0, "satisfied": 0},
            "user_simulator": {"rate": None, "failed": 0, "satisfied": 0},
        },
    }
    header = bucket_lines(cast(Report, report))[0]  # only what the header reads
    assert header.startswith("misselection by judge-score gap") and "capability" not in header


def test_two_unparsable_orders_are_not_swap_consistent() -> None:
    both_failed = PairJudgement("tie", "tie", "tie", None, None, [], False, False)
    assert both_failed.consistent is False
    one_failed = PairJudgement("tie", "tie", "tie", None, 3.0, [], True, False)
    assert one_failed.consistent is False
    agreed = PairJudgement("tie", "tie", "tie", 3.0, 3.0, [], True, True)
    assert agreed.consistent is True
    assert PairJudgement("A", None, "A", 4.0, 1.0, [], True).consistent is None


def test_position_bias_uses_the_stored_consistency_flag() -> None:
    pairs = pd.DataFrame(
        {
            "judge_model": ["j", "j"],
            "pref_ab": ["tie", "A"],
            "pref_ba": ["tie", "A"],
            "consistent": [0, 1],  # the first: both orders unparsable
        }
    )
    (row,) = metrics.position_bias(pairs)
    assert row["consistent"] == 1 and row["inconsistent"] == 1 and row["consistency_rate"] == 0.5

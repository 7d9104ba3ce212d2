"""Statistics checked against hand-computed values, plus properties (hypothesis)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgeaudit.analysis import metrics
from judgeaudit.analysis.stats import cohen_kappa, confusion, newcombe_diff, wilson


def test_wilson_hand_computed() -> None:
    # 31 of 100: centre (0.31 + 1.9207/100) / 1.038415 = 0.31703,
    # half 1.96 * sqrt(0.31 * 0.69 / 100 + 3.8415 / 40000) / 1.038415 = 0.08924.
    low, high = wilson(31, 100)
    assert low == pytest.approx(0.2278, abs=1e-4) and high == pytest.approx(0.4063, abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    assert wilson(0, 0) == (None, None)


def test_kappa_hand_computed() -> None:
    # 2x2: agree on 20 yes + 15 no out of 50; marginals 25/25 and 30/20.
    a = ["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    # po = 35/50 = 0.7; pe = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = 0.4
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert confusion(a, b) == {"n": {"n": 15, "y": 10}, "y": {"n": 5, "y": 20}}


def test_newcombe_hand_computed() -> None:
    diff, low, high = newcombe_diff(10, 100, 30, 100)
    assert diff == pytest.approx(0.2)
    # Newcombe (1998) method 10 for 30/100 vs 10/100: [0.0895, 0.3043]
    assert low == pytest.approx(0.0895, abs=2e-3) and high == pytest.approx(0.3043, abs=2e-3)


def _pairs(rows: list[tuple[int, int, str, float, float]]) -> pd.DataFrame:
    frame = pd.DataFrame(
        rows, columns=["success_a", "success_b", "judge_pref", "capability_a", "capability_b"]
    )
    winner = frame.apply(
        lambda r: "A" if r.success_a > r.success_b else "B" if r.success_b > r.success_a else None,
        axis=1,
    )
    frame["misselected"] = (
        ((winner == "A") & (frame.judge_pref == "B"))
        | ((winner == "B") & (frame.judge_pref == "A"))
    ).astype(int)
    frame["pair_id"] = [f"p{i}" for i in range(len(frame))]
    return frame


def test_buckets_hand_computed_and_empty_bucket_kept() -> None:
    frame = _pairs(
        [
            (1, 0, "B", 0.9, 0.85),  # near, decisive, misselected
            (1, 0, "A", 0.9, 0.85),  # near, decisive, right
            (1, 1, "B", 0.9, 0.85),  # near, not decisive
            (0, 1, "B", 0.1, 0.9),  # large, decisive, right
        ]
    )
    out = metrics.buckets(
        frame, "capability", [-0.01, 0.15, 0.3, 0.5, 1.0], ["近同", "小差", "中差", "大差"]
    )
    near, small, _, large = out
    assert (near["pairs"], near["decisive"], near["misselected"], near["rate"]) == (3, 2, 1, 0.5)
    assert small["pairs"] == 0 and small["rate"] is None and small["ci_low"] is None
    assert (large["decisive"], large["misselected"], large["rate"]) == (1, 0, 0.0)
    assert near["alias"] == "near"


def test_position_bias_hand_computed() -> None:
    frame = pd.DataFrame(
        {
            "judge_model": ["j"] * 4,
            "pref_ab": ["A", "A", "B", "tie"],
            "pref_ba": ["A", "B", "B", "B"],
            "consistent": [1, 0, 1, 0],
        }
    )
    [bias] = metrics.position_bias(frame)
    assert bias["consistency_rate"] == 0.5
    # inconsistent: (A, B): both first-shown sides won (A in AB, B in BA) -> 2 of 2 decided;
    # (tie, B): B was first in BA -> 1 of 1 decided.
    assert bias["first_position_wins"] == 3 and bias["decided_in_inconsistent"] == 3


outcomes = st.lists(
    st.tuples(
        st.integers(0, 1),
        st.integers(0, 1),
        st.sampled_from(["A", "B", "tie"]),
        st.floats(0, 1),
        st.floats(0, 1),
    ),
    min_size=1,
    max_size=60,
)


@given(st.integers(0, 500), st.integers(0, 500))
def test_interval_contains_estimate(k: int, extra: int) -> None:
    n = k + extra
    low, high = wilson(k, n)
    if n == 0:
        assert low is None
    else:
        assert low is not None and high is not None
        assert low - 1e-12 <= k / n <= high + 1e-12 and 0 <= low <= high <= 1


@given(st.lists(st.sampled_from(["A", "B", "tie"]), min_size=1, max_size=50))
def test_identical_labels_give_kappa_one(labels: list[str]) -> None:
    assert cohen_kappa(labels, labels) == 1.0


@given(outcomes)
def test_swapping_a_and_b_keeps_bucket_rates(
    rows: list[tuple[int, int, str, float, float]],
) -> None:
    frame = _pairs(rows)
    flip = {"A": "B", "B": "A", "tie": "tie"}
    swapped = _pairs([(sb, sa, flip[p], cb, ca) for sa, sb, p, ca, cb in rows])
    bins = [-0.01, 0.15, 0.3, 0.5, 1.0]
    labels = ["近同", "小差", "中差", "大差"]
    for x, y in zip(
        metrics.buckets(frame, "capability", bins, labels),
        metrics.buckets(swapped, "capability", bins, labels),
        strict=True,
    ):
        assert (x["decisive"], x["misselected"]) == (y["decisive"], y["misselected"])
        assert (x["rate"] is None and y["rate"] is None) or math.isclose(x["rate"], y["rate"])

"""Statistics checked against hand-computed values, plus properties (hypothesis)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from judgeaudit.analysis import metrics
from judgeaudit.analysis.stats import (
    cluster_bootstrap,
    cohen_kappa,
    confusion,
    fisher_exact,
    holm,
    mcnemar_exact,
    newcombe_diff,
    newcombe_paired,
    weighted_holm,
    wilson,
)


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
    a_won, b_won = frame.success_a > frame.success_b, frame.success_b > frame.success_a
    frame["misselected"] = (
        (a_won & (frame.judge_pref == "B")) | (b_won & (frame.judge_pref == "A"))
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
    """A review: perfect agreement printed `kappa 1.00 [1.00, 1.00]` whenever rounding left
    the variance at ~1e-16 instead of 0 (327 of 1,160 random label lists)."""
    from judgeaudit.analysis.stats import kappa_interval

    assert cohen_kappa(labels, labels) == 1.0
    assert kappa_interval(labels, labels) == (None, None)
    assert kappa_interval(labels, labels, clusters=list(range(len(labels)))) == (None, None)


@settings(deadline=None)  # the buckets carry a bootstrap now; timing is not what is tested
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


def test_newcombe_paired_hand_computed() -> None:
    # Altman et al. (2000), Table 6.2: both 14, first only 5, second only 0, neither 22 (n 41).
    # p1 = 19/41 = 0.463415, p2 = 14/41 = 0.341463.
    # Wilson 19/41: [0.320564, 0.612540]; Wilson 14/41: [0.215586, 0.494502].
    # phi: ad - bc = 308 > n/2 so 308 - 20.5 = 287.5, over sqrt(19*22*14*27) = 397.497 -> 0.723276.
    # p1 - p2 = 0.121951; lower = 0.121951 - sqrt(0.142851^2 - 2*0.723276*0.142851*0.153039
    #   + 0.153039^2) = 0.011475; upper = 0.121951 + sqrt(0.125877^2 - 2*0.723276*0.125877
    #   *0.149125 + 0.149125^2) = 0.226493.  We report p2 - p1, so the signs flip.
    diff, low, high = newcombe_paired(14, 5, 0, 22)
    assert diff == pytest.approx(-5 / 41)
    assert low == pytest.approx(-0.22649, abs=2e-4) and high == pytest.approx(-0.01148, abs=2e-4)
    # No discordant pairs: the change is 0 and the interval is symmetric around it.
    diff, low, high = newcombe_paired(5, 0, 0, 5)
    assert high is not None
    assert diff == 0 and low == pytest.approx(-high)
    assert newcombe_paired(0, 0, 0, 0) == (None, None, None)


def test_newcombe_paired_without_correlation_equals_the_unpaired_square_and_add() -> None:
    # ad - bc = 0 -> phi = 0: the paired interval is the hybrid score interval of the margins.
    diff, low, high = newcombe_paired(2, 2, 3, 3)  # ad = 6 = bc
    udiff, ulow, uhigh = newcombe_diff(4, 10, 5, 10)
    assert diff == pytest.approx(udiff) and low == pytest.approx(ulow)
    assert high == pytest.approx(uhigh)


def test_mcnemar_exact_hand_computed() -> None:
    # 1 vs 6 discordant: 2 * (C(7,0) + C(7,1)) / 2^7 = 16/128 = 0.125.
    assert mcnemar_exact(1, 6) == pytest.approx(0.125)
    assert mcnemar_exact(6, 1) == pytest.approx(0.125)
    # 0 vs 5: 2 / 32 = 0.0625; 4 vs 14: 2 * sum_{i<=4} C(18,i) / 2^18 = 2 * 4048 / 262144.
    assert mcnemar_exact(0, 5) == pytest.approx(0.0625)
    assert mcnemar_exact(4, 14) == pytest.approx(2 * 4048 / 262144)
    assert mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(0, 0) == 1.0


def test_fisher_exact_and_holm_hand_computed() -> None:
    # The tea-tasting table 3/4 vs 1/4: two-sided p = (1 + 16 + 16 + 1) / 70 = 34/70.
    assert fisher_exact(3, 4, 1, 4) == pytest.approx(34 / 70)
    assert fisher_exact(2, 4, 2, 4) == pytest.approx(1.0)
    # Holm: sorted 0.01*4 = 0.04, 0.03*3 = 0.09, 0.04*2 = 0.08 -> 0.09 (monotone), 0.2*1.
    assert holm([0.01, 0.04, 0.03, 0.2]) == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert holm([]) == []


def test_weighted_holm_hand_computed_and_equal_weights_are_statsmodels_holm() -> None:
    # The gate's family: overall holds 1/2, four buckets 1/8 each. In the order of p / w:
    # overall 0.0156 * 1 / 0.5 = 0.0312; large 0.04 * 0.5 / 0.125 = 0.16; small
    # 0.2 * 0.375 / 0.125 = 0.6; near 0.3 * 0.25 / 0.125 = 0.6; medium 0.5 * 1 -> 0.6 (monotone).
    p_values = [0.0156, 0.30, 0.20, 0.50, 0.04]
    weights = [0.5, 0.125, 0.125, 0.125, 0.125]
    assert weighted_holm(p_values, weights) == pytest.approx([0.0312, 0.6, 0.6, 0.6, 0.16])
    # Plain Holm on the same rows leaves the overall row at 5 * 0.0156 = 0.078: not significant.
    reference = multipletests(p_values, method="holm")[1]
    assert weighted_holm(p_values, [1.0] * 5) == pytest.approx(list(reference))
    assert holm(p_values) == pytest.approx(list(reference))
    assert reference[0] == pytest.approx(0.078)
    with pytest.raises(ValueError):
        weighted_holm([0.1, 0.2], [1.0, 0.0])


def test_weighted_holm_keeps_the_family_wise_error_under_the_global_null() -> None:
    # 20,000 families of five independent uniform p-values, every null true: a family with any
    # adjusted p below 0.05 is a false alarm; the procedure promises at most 5%.
    rng = np.random.default_rng(11)
    draws = rng.uniform(size=(20_000, 5))
    weights = [0.5, 0.125, 0.125, 0.125, 0.125]
    alarms = sum(min(weighted_holm(list(row), weights)) < 0.05 for row in draws)
    low, _high = proportion_confint(alarms, 20_000, method="wilson")
    assert low < 0.05 and alarms / 20_000 > 0.04  # about 5%: independent nulls are the worst case


def test_cluster_bootstrap_is_seeded_and_wider_than_wilson_when_tasks_cluster() -> None:
    # 20 tasks: in 5 every pair is misselected, in 15 none (10 pairs each): strong clustering.
    k = [10] * 5 + [0] * 15
    n = [10] * 20
    first, second = cluster_bootstrap(k, n), cluster_bootstrap(k, n)
    assert first == second, "the same report every time"
    low, high = first
    w_low, w_high = wilson(50, 200)
    assert low is not None and high is not None and w_low is not None and w_high is not None
    assert high - low > 1.5 * (w_high - w_low)
    assert cluster_bootstrap([], []) == (None, None)


def test_mcnemar_exact_over_a_million_discordant_pairs_is_fast_and_exact() -> None:
    """The tail sum skips only terms whose exp is exactly 0.0: every digit is the full sum's
    (hand computation: the definition summed term by term), and scipy agrees."""
    import math
    import time

    from scipy.stats import binomtest

    from judgeaudit.analysis.stats import _log_binom_pmf, mcnemar_exact

    def full(a: int, b: int) -> float:
        m, k = a + b, min(a, b)
        if m == 0:
            return 1.0
        return min(1.0, 2 * math.fsum(math.exp(_log_binom_pmf(i, m, 0.5)) for i in range(k + 1)))

    cases = [(0, 0), (0, 1), (3, 9), (0, 2000), (10, 3000), (1500, 1600), (4900, 5100),
             (49_000, 51_000), (120_000, 121_000), (30, 200_000)]  # fmt: skip
    for a, b in cases:
        assert mcnemar_exact(a, b) == full(a, b), (a, b)
        assert math.isclose(mcnemar_exact(a, b), binomtest(a, a + b).pvalue if a + b else 1.0,
                            rel_tol=1e-9, abs_tol=1e-300)  # fmt: skip
    started = time.process_time()
    p = mcnemar_exact(499_000, 501_000)
    assert time.process_time() - started < 0.5  # the full sum took ~1 s here
    assert math.isclose(p, binomtest(499_000, 1_000_000).pvalue, rel_tol=1e-9)


def test_kappa_has_no_interval_where_its_standard_error_collapses() -> None:
    """One item, or perfect agreement: the large-sample variance is 0 (statsmodels gives a
    zero-width interval), which would read as certainty; none is given."""
    from judgeaudit.analysis.stats import kappa_interval

    assert kappa_interval(["A"], ["B"]) == (None, None)
    assert kappa_interval(["A", "B", "A"], ["A", "B", "A"]) == (None, None)
    assert kappa_interval([], []) == (None, None)

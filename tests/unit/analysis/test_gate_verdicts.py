"""The gate's no-verdict rise test: over the orders both runs judged, task by task, because the
two orders of a pair (and the pairs of a task) fail to parse together; a test over orders as
independent draws calls a rise of an unchanged judge far more often than its level, and so did
comparing shares of different orders when the runs judged different numbers per task."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from scipy import stats

from judgeaudit.analysis.gate_verdicts import RISE_ALPHA, rise_p, verdict_check

Orders = dict[tuple[Any, ...], float]


def orders(per_task: dict[str, tuple[int, int]]) -> Orders:
    """Each task's ``n`` orders (pair i, AB), the first ``k`` without a verdict."""
    return {
        (task, i, i, "a", "b", "AB"): float(i < k) for task, (k, n) in per_task.items()
        for i in range(n)
    }  # fmt: skip


def _health(found: Orders) -> dict[str, Any]:
    missing, total = int(sum(found.values())), len(found)
    return {
        "orders": total,
        "no_verdict_orders": missing,
        "no_verdict_rate": missing / total,
        "no_verdict_rate_ci": [None, None],
        "max_no_verdict_rate": 1.0,  # the limit out of the way: only the rise is tested here
    }


def check(a: dict[str, tuple[int, int]], b: dict[str, tuple[int, int]]) -> dict[str, Any]:
    oa, ob = orders(a), orders(b)
    return verdict_check(_health(oa), _health(ob), oa, ob)


def by_hand(values: list[float]) -> float:
    """P(sum e v >= sum v) over every sign vector, one by one."""
    observed = sum(values)
    hits = sum(
        sum(s * v for s, v in zip(signs, values, strict=True)) >= observed - 1e-9
        for signs in itertools.product((1, -1), repeat=len(values))
    )
    return hits / float(2 ** len(values))


def test_the_rise_p_is_the_exact_sign_flip_over_tasks() -> None:
    # by hand: three tasks changed, all up by 2, 1, 3; only the all-positive sign vector of the
    # 2^3 reaches the observed sum, so p = 1/8; a task that did not change carries no sign
    a = {"t1": (0, 20), "t2": (1, 20), "t3": (0, 20), "t4": (5, 20)}
    b = {"t1": (2, 20), "t2": (2, 20), "t3": (3, 20), "t4": (5, 20)}
    assert check(a, b)["p_value"] == pytest.approx(1 / 8)
    # one task falls by 3: sign vectors reaching 2 + 1 + 3 - 3 = 3 of the 16 are 6 (hand count)
    b["t4"] = (2, 20)
    assert check(a, b)["p_value"] == pytest.approx(6 / 16)


@pytest.mark.parametrize("tasks", [4, 9, 14])
def test_it_counts_every_sign_vector_as_itertools_and_scipy_do(tasks: int) -> None:
    rng = np.random.default_rng(tasks)
    values = [float(v) for v in rng.integers(-6, 9, size=tasks)]
    values[0] = 0.0  # a task that did not change
    ours = rise_p(values)
    assert ours == pytest.approx(by_hand(values), abs=1e-12)
    # scipy's paired permutation test (each task's two values swap: the sign flip), exact
    after = np.array(values)
    found = stats.permutation_test(
        (after, np.zeros(tasks)), lambda x, y: np.sum(x - y), permutation_type="samples",
        alternative="greater", n_resamples=np.inf,
    )  # fmt: skip
    assert ours == pytest.approx(found.pvalue, abs=1e-12)
    halves = [v / 2 for v in values]  # shares of two judge models: the same p
    assert rise_p(halves) == pytest.approx(ours, abs=1e-12)


@pytest.mark.parametrize("tasks", [25, 31, 60])
def test_many_tasks_agree_with_the_exact_convolution(tasks: int) -> None:
    """Past the by-hand reach: the halves' sorted search (25 tasks) and the convolution (more
    than 30) against the convolution of the rows' test, the exact distribution by another
    route (each task's sign adds or takes its value: 2^G sums folded into their counts)."""
    rng = np.random.default_rng(tasks)
    values = [int(v) for v in rng.integers(-3, 6, size=tasks)]
    counts = {0: 1.0}
    for v in values:
        nxt: dict[int, float] = {}
        for total, share in counts.items():
            for signed in (v, -v):
                nxt[total + signed] = nxt.get(total + signed, 0.0) + share / 2
        counts = nxt
    expected = sum(share for total, share in counts.items() if total >= sum(values))
    assert rise_p([float(v) for v in values]) == pytest.approx(expected, rel=1e-9)


def test_a_few_tasks_never_get_a_p_below_the_exact_minimum() -> None:
    """A review: past the exact test's cell limit a normal approximation gave 4 tasks, all up,
    p = 0.023; with four signs no p is below 1/16 (2.5% is out of reach)."""
    assert rise_p([400.0, 3000.0, 5000.0, 700.0]) == pytest.approx(1 / 16)
    a = {f"t{i}": (0, 4000) for i in range(4)}
    b = {f"t{i}": (4000, 4000) for i in range(4)}
    assert not check(a, b)["significant_rise"]


def test_more_orders_in_run_b_are_compared_on_the_orders_both_judged() -> None:
    """A review: the test compared shares of different orders, B less A. On the orders both
    judged, run B's extra orders and tasks only B has say nothing of a change (here B's extra
    orders fail more, at 19%: that is the limit's to judge, not the rise's)."""
    a = orders({f"t{i}": (1, 10) for i in range(30)})
    b = orders({f"t{i}": (1, 100) for i in range(30)})  # its first 10 orders: as in A
    b.update({(f"t{i}", j, j, "a", "b", "AB"): 1.0 for i in range(30) for j in range(50, 59)})
    b[("t0", 2, 2, "a", "b", "AB")] = 1.0  # one more in a paired order of one task
    found = verdict_check(_health(a), _health(b), a, b)
    assert _health(b)["no_verdict_rate"] > 0.1 and found["paired_orders"] == 300
    assert found["p_value"] == pytest.approx(0.5)  # one task up, 29 unchanged: 1 of 2 signs
    b.update(orders({f"new{i}": (50, 100) for i in range(80)}))  # tasks only B judged
    assert verdict_check(_health(a), _health(b), a, b)["p_value"] == pytest.approx(0.5)
    before = {f"t{i}": (1, 20) for i in range(10)}  # 5% ...
    after = {f"t{i}": (5, 20) for i in range(10)}  # ... to 25% in every task: 10 tasks up
    found = check(before, after)
    assert found["p_value"] == pytest.approx(1 / 2**10) and found["significant_rise"]


def _false_alarms(runs: int, seed: int, n_a: int, n_b: int, together: int, q_mean: float) -> float:
    """Null pairs of runs: one judge whose orders fail, ``together`` at a time (a conversation),
    at a rate of their task shared by both runs; run A judged ``n_a`` orders per task, B
    ``n_b`` (B's first ``n_a`` the same orders)."""
    rng = np.random.default_rng(seed)
    tasks, fires = 30, 0
    for _ in range(runs):
        q = rng.beta(0.5, 0.5 / q_mean - 0.5, size=tasks)
        fail_a = np.repeat(rng.random((tasks, n_a // together)) < q[:, None], together, axis=1)
        fail_b = np.repeat(rng.random((tasks, n_b // together)) < q[:, None], together, axis=1)
        oa = {
            (t, i, i, "a", "b", "AB"): float(fail_a[t, i]) for t in range(tasks) for i in range(n_a)
        }
        ob = {
            (t, i, i, "a", "b", "AB"): float(fail_b[t, i]) for t in range(tasks) for i in range(n_b)
        }
        fires += verdict_check(_health(oa), _health(ob), oa, ob)["significant_rise"]
    return fires / runs


def _margin(runs: int) -> float:
    """Three binomial standard errors of a rate at the level over ``runs`` runs."""
    return 3 * math.sqrt(RISE_ALPHA * (1 - RISE_ALPHA) / runs)


@pytest.mark.parametrize(
    ("n_a", "n_b", "together", "q_mean"),
    [(20, 20, 4, 0.1), (2, 20, 1, 0.05), (4, 40, 2, 0.05), (2, 20, 1, 0.2)],
)
def test_an_unchanged_judge_is_called_worse_at_most_at_the_tests_level(
    n_a: int, n_b: int, together: int, q_mean: float
) -> None:
    """A review: with run A judging 2 orders per task and run B 20, the test of shares
    (``k_b n_a - k_a n_b``) fired in 8.2% of null runs at a stated 2.5%; on the paired orders it
    holds its level, with orders failing together too."""
    runs = 1500
    assert _false_alarms(runs, 5, n_a, n_b, together, q_mean) <= RISE_ALPHA + _margin(runs)


def test_fisher_over_orders_fires_above_the_level_where_the_task_test_holds() -> None:
    """Why the test is by task: Fisher over orders (the test before, two-sided at 5%, a rise)
    on the same null runs, conversations whose four orders fail together."""
    rng = np.random.default_rng(3)
    tasks, units, runs, fires = 30, 5, 1000, 0
    for _ in range(runs):
        q = rng.beta(0.5, 4.5, size=tasks)
        k_a, k_b = (4 * int(rng.binomial(units, q).sum()) for _ in range(2))
        n = 4 * units * tasks
        p = stats.fisher_exact([[k_b, n - k_b], [k_a, n - k_a]]).pvalue
        fires += bool(p < 0.05 and k_b > k_a)
    assert fires / runs > 0.10, fires


def test_it_catches_a_real_rise_more_often_the_larger_it_is() -> None:
    """Power: the null model (30 tasks, conversations of four orders failing together, a mean
    of 10%) with run B's failure rate per conversation raised by 5 and 10 points. What the
    design needs: above the level at 5 points, most rises caught at 10 (docs/gate.md quotes the
    measured figures, bench/gate_rise_calibration.py)."""
    rng = np.random.default_rng(11)
    tasks, units, runs = 30, 5, 400
    power = {}
    for shift in (0.05, 0.10):
        fires = 0
        for _ in range(runs):
            q = rng.beta(0.5, 4.5, size=tasks)
            fail_a = np.repeat(rng.random((tasks, units)) < q[:, None], 4, axis=1)
            fail_b = np.repeat(
                rng.random((tasks, units)) < np.minimum(1, q + shift)[:, None], 4, axis=1
            )
            oa = {
                (t, i, i, "a", "b", "AB"): float(fail_a[t, i])
                for t in range(tasks)
                for i in range(4 * units)
            }
            ob = {
                (t, i, i, "a", "b", "AB"): float(fail_b[t, i])
                for t in range(tasks)
                for i in range(4 * units)
            }
            fires += verdict_check(_health(oa), _health(ob), oa, ob)["significant_rise"]
        power[shift] = fires / runs
    assert power[0.05] > 4 * RISE_ALPHA, power
    assert power[0.10] > 0.5 and power[0.10] > power[0.05], power


def test_a_judge_that_stopped_answering_fails_by_the_rise_and_says_how() -> None:
    a = {f"t{i}": (0, 12) for i in range(8)}
    b = {f"t{i}": (6, 12) for i in range(8)}
    found = check(a, b)
    assert found["significant_rise"] and found["p_value"] == pytest.approx(1 / 256)
    said = found["failed"][0]
    assert "rose from 0 to 48 of the 96 orders both runs judged" in said, said
    assert "sign-flip" in said and "over 8 tasks" in said

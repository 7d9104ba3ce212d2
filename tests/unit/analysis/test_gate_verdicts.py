"""The gate's no-verdict rise test: task by task, because the two orders of a pair (and the pairs
of a task) fail to parse together; a test over orders as independent draws calls a rise of an
unchanged judge far more often than its level."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import stats

from judgeaudit.analysis.gate_verdicts import RISE_ALPHA, rise_p, verdict_check


def _health(per_task: dict[str, tuple[int, int]]) -> dict[str, Any]:
    missing = sum(k for k, _ in per_task.values())
    orders = sum(n for _, n in per_task.values())
    return {
        "orders": orders,
        "no_verdict_orders": missing,
        "no_verdict_rate": missing / orders,
        "no_verdict_rate_ci": [None, None],
        "max_no_verdict_rate": 1.0,  # the limit out of the way: only the rise is tested here
    }


def test_the_rise_p_is_the_exact_sign_flip_over_tasks() -> None:
    # by hand: three tasks changed, all up by 2, 1, 3; only the all-positive sign vector of the
    # 2^3 reaches the observed sum, so p = 1/8; a task that did not change carries no sign
    a = {"t1": (0, 20), "t2": (1, 20), "t3": (0, 20), "t4": (5, 20)}
    b = {"t1": (2, 20), "t2": (2, 20), "t3": (3, 20), "t4": (5, 20)}
    assert rise_p(a, b) == pytest.approx(1 / 8)
    # one task falls by 3: sign vectors reaching 2 + 1 + 3 - 3 = 3 of the 16 are 6 (hand count)
    b["t4"] = (2, 20)
    assert rise_p(a, b) == pytest.approx(6 / 16)


def test_more_orders_or_more_tasks_at_the_same_share_are_no_rise() -> None:
    """A review: the test took counts, B less A, over the tasks of either run, so run B judging
    twice the orders at the same 10% (one task at 15%) was p = 9e-10, and 80 tasks only B has
    a rise too; a real rise on fewer orders was p = 1."""
    a = {f"t{i}": (1, 10) for i in range(30)}
    b = {f"t{i}": (2, 20) for i in range(30)}
    b["t0"] = (3, 20)
    assert rise_p(a, b) == pytest.approx(0.5)  # one task up, 29 unchanged: 1 of 2 signs
    b.update({f"new{i}": (2, 20) for i in range(80)})
    assert rise_p(a, b) == pytest.approx(0.5)  # tasks only B judged say nothing of a change
    a = {f"t{i}": (1, 20) for i in range(10)}  # 5% ...
    b = {f"t{i}": (1, 4) for i in range(10)}  # ... to 25% in every task: 10 tasks up
    assert rise_p(a, b) == pytest.approx(1 / 2**10)
    assert verdict_check(_health(a), _health(b), a, b)["significant_rise"]


def test_an_unchanged_judge_is_called_worse_at_most_at_the_tests_level() -> None:
    """Null runs: the same conversations judged twice by one judge whose output fails on a
    conversation (too long, say: the four orders of its two pairs fail together) at a rate of
    its task. Fisher over orders, the test before (scipy's, two-sided at 5%, a rise), fires far
    above its 2.5%; the task-level test holds it."""
    rng = np.random.default_rng(3)
    tasks, units, runs = 30, 5, 2000
    fisher_fires = fires = 0
    for _ in range(runs):
        q = rng.beta(0.5, 4.5, size=tasks)  # each task's failure rate, shared by both runs
        k_a, k_b = (4 * rng.binomial(units, q) for _ in range(2))  # 4 orders fail together
        a = {f"t{i}": (int(k_a[i]), 4 * units) for i in range(tasks)}
        b = {f"t{i}": (int(k_b[i]), 4 * units) for i in range(tasks)}
        fires += verdict_check(_health(a), _health(b), a, b)["significant_rise"]
        n = 4 * units * tasks
        table = [[int(k_b.sum()), n - int(k_b.sum())], [int(k_a.sum()), n - int(k_a.sum())]]
        p = stats.fisher_exact(table).pvalue
        fisher_fires += bool(p < 0.05 and k_b.sum() > k_a.sum())
    assert fisher_fires / runs > 0.10, fisher_fires  # the orders' dependence, not a rise
    assert fires / runs <= RISE_ALPHA + 0.01, fires  # 2000 runs: the level within ~3 SE


def test_its_power_against_a_real_rise_is_measured() -> None:
    """The other half of the decision's calibration: the same null-run model with run B's
    failure rate per conversation raised by 5 and by 10 points (from a mean of 10%). The figures
    docs/gate.md quotes (seed 11, 1,000 runs each: 22.3% and 66.1%)."""
    rng = np.random.default_rng(11)
    tasks, units, runs = 30, 5, 1000
    power = {}
    for shift in (0.05, 0.10):
        fires = 0
        for _ in range(runs):
            q = rng.beta(0.5, 4.5, size=tasks)
            k_a = 4 * rng.binomial(units, q)
            k_b = 4 * rng.binomial(units, np.minimum(1.0, q + shift))
            a = {f"t{i}": (int(k_a[i]), 4 * units) for i in range(tasks)}
            b = {f"t{i}": (int(k_b[i]), 4 * units) for i in range(tasks)}
            fires += verdict_check(_health(a), _health(b), a, b)["significant_rise"]
        power[shift] = fires / runs
    # exact with this numpy; the margin (about two standard errors) for another's samplers
    assert power[0.05] == pytest.approx(0.223, abs=0.03)
    assert power[0.10] == pytest.approx(0.661, abs=0.03)
    assert power[0.05] < power[0.10]


def test_a_judge_that_stopped_answering_fails_by_the_rise_and_says_how() -> None:
    a = {f"t{i}": (0, 12) for i in range(8)}
    b = {f"t{i}": (6, 12) for i in range(8)}
    found = verdict_check(_health(a), _health(b), a, b)
    assert found["significant_rise"] and found["p_value"] == pytest.approx(1 / 256)
    assert "sign-flip" in found["failed"][0] and "over 8 tasks" in found["failed"][0]
    assert "95% CI" not in found["failed"][0] or "Wilson" in found["failed"][0]

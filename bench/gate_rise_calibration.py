"""The no-verdict rise test's false-alarm rate and power, simulated (docs/gate.md).

Null pairs of runs: one judge whose orders fail to parse at a rate of their task (Beta
distributed across 30 tasks), shared by both runs; a conversation's orders fail together. Run A
may judge fewer orders per task than run B (B re-judged with more trials): B's first orders are
A's. Each model prints the share of runs the gate's rise reason fired in, with its Wilson 95%
interval: the test now (``verdict_check``, the orders both runs judged), and the test it
replaced (shares of each task's own orders, ``k_b n_a - k_a n_b``, sign-flipped) or Fisher's
over orders. Power: run B's failure rate per conversation raised by 5 and 10 points.

    PYTHONPATH=src python bench/gate_rise_calibration.py [NULL_RUNS, default 2000]
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
from scipy import stats

from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.gate_verdicts import RISE_ALPHA, verdict_check
from judgeaudit.analysis.stats import wilson

TASKS = 30


def _orders(fail: Any) -> dict[tuple[Any, ...], float]:
    rows, cols = fail.shape
    return {(t, i, i, "a", "b", "AB"): float(fail[t, i]) for t in range(rows) for i in range(cols)}


def _health(found: dict[tuple[Any, ...], float]) -> dict[str, Any]:
    missing = int(sum(found.values()))
    return {"orders": len(found), "no_verdict_orders": missing,
            "no_verdict_rate": missing / len(found), "max_no_verdict_rate": 1.0}  # fmt: skip


def _before(fail_a: Any, fail_b: Any) -> bool:
    """The replaced test: each task's share, B less A, as ``k_b n_a - k_a n_b``."""
    n_a, n_b = fail_a.shape[1], fail_b.shape[1]
    k_a, k_b = fail_a.sum(axis=1), fail_b.sum(axis=1)
    values = [int(x) for x in k_b * n_a - k_a * n_b]
    common = math.gcd(*values) if any(values) else 1
    rose = k_b.sum() / fail_b.size > k_a.sum() / fail_a.size
    return bool(rose and ni.signflip_p([v // common for v in values]) < RISE_ALPHA)


def _fisher(fail_a: Any, fail_b: Any) -> bool:
    k_a, k_b = int(fail_a.sum()), int(fail_b.sum())
    table = [[k_b, fail_b.size - k_b], [k_a, fail_a.size - k_a]]
    return bool(stats.fisher_exact(table).pvalue < 0.05 and k_b / fail_b.size > k_a / fail_a.size)


def simulate(runs: int, seed: int, n_a: int, n_b: int, together: int, q_mean: float,
             shift: float = 0.0) -> tuple[int, int, int]:  # fmt: skip
    """(fired now, fired by the replaced test, fired by Fisher) over ``runs`` pairs of runs."""
    rng = np.random.default_rng(seed)
    now = before = fisher = 0
    for _ in range(runs):
        q = rng.beta(0.5, 0.5 / q_mean - 0.5, size=TASKS)
        q_b = np.minimum(1.0, q + shift)
        fail_a = np.repeat(rng.random((TASKS, n_a // together)) < q[:, None], together, axis=1)
        fail_b = np.repeat(rng.random((TASKS, n_b // together)) < q_b[:, None], together, axis=1)
        oa, ob = _orders(fail_a), _orders(fail_b)
        now += verdict_check(_health(oa), _health(ob), oa, ob)["significant_rise"]
        before += _before(fail_a, fail_b)
        fisher += _fisher(fail_a, fail_b)
    return now, before, fisher


def _share(k: int, n: int) -> str:
    low, high = wilson(k, n)
    assert low is not None and high is not None
    return f"{k / n * 100:.1f}% [{low * 100:.1f}, {high * 100:.1f}]"


def main(null_runs: int = 2000) -> None:
    """``null_runs`` pairs of runs per null model, half as many per power model (the figures in
    docs/gate.md are the defaults; CI runs a small number so the script cannot rot)."""
    power_runs = max(1, null_runs // 2)
    print(f"rise test level {RISE_ALPHA:g}; 30 tasks; shares with Wilson 95% intervals")
    for seed, runs, n_a, n_b, together, q_mean in (
        (3, null_runs, 20, 20, 4, 0.1),
        (5, null_runs, 2, 20, 1, 0.05),
        (5, null_runs, 4, 40, 1, 0.05),
        (5, null_runs, 20, 20, 1, 0.05),
        (5, null_runs, 2, 20, 1, 0.2),
    ):
        now, before, fisher = simulate(runs, seed, n_a, n_b, together, q_mean)
        print(
            f"null, orders per task A={n_a} B={n_b}, {together} failing together, mean {q_mean:g}"
            f" (seed {seed}, {runs} runs): now {_share(now, runs)}; before (shares) "
            f"{_share(before, runs)}; Fisher over orders {_share(fisher, runs)}"
        )
    for shift in (0.05, 0.10):
        now, before, _ = simulate(power_runs, 11, 20, 20, 4, 0.1, shift)
        print(
            f"power, +{shift * 100:g} points per conversation from a mean of 10%, A=B=20 orders, "
            f"4 failing together (seed 11, {power_runs} runs): now {_share(now, power_runs)}; "
            f"before {_share(before, power_runs)}"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)

"""Whether run B's judge gave verdicts: the gate's no-verdict reasons (``compare``).

A judge whose output does not parse leaves ties, and a tie is never a misselection, so a broken
judge would pass ``--fail-on-rise`` as an improvement. Two reasons fail the gate: run B's share
of judged orders without a verdict above the limit, or a significant rise from run A's.

The rise is tested on the *paired* orders, the orders (pair and AB/BA) both runs judged, task by
task. The two orders of a pair, and the pairs of a task, fail to parse together (one long
transcript, one prompt), so a test over orders as independent draws (Fisher's, before) calls a
rise far more often than its level says (the unit tests measure it). Each task's change is its
paired orders' missing count, B less A; under no change the two runs are exchangeable on each
task, so its sign is a fair coin whatever the dependence inside a task: the sign-flip test, exact
(every one of the 2^G sign vectors) up to :data:`EXACT_TASKS` changed tasks. Comparing shares of
different orders (``k_b n_a - k_a n_b``, before) is skewed under no change when the runs judged
different numbers of orders per task, so it fired at three times its level (docs/gate.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.fmt import no_verdict

#: The rise is the rise side of a two-sided 5% test, the level the Fisher test had.
RISE_ALPHA = ni.ALPHA / 2
#: Up to this many changed tasks every sign vector is counted (two halves of 2^15 sums, met by a
#: sorted search); above it, integer changes take the exact convolution of the misselection rows
#: (:func:`judgeaudit.analysis.noninferiority.signflip_p`), others the normal approximation.
EXACT_TASKS = 30
RISE_TEST = (
    "exact task-level sign-flip test of each task's orders without a verdict, run B less run A, "
    "over the orders both runs judged, "
    f"one-sided at {RISE_ALPHA:g} (the rise side of a two-sided {ni.ALPHA:g} test)"
)

#: (task, trial, trial_b, agent_a, agent_b, order) -> share of its judge calls' verdicts missing
#: (0 or 1 with one judge model): :func:`judgeaudit.analysis.verdicts.missing_per_order`.
PerOrder = Mapping[tuple[Any, ...], float]


@dataclass(frozen=True)
class Paired:
    """The orders both runs judged: per task, its missing count B less A; and the totals."""

    changes: dict[Any, float]
    orders: int
    missing_a: float
    missing_b: float


def paired_orders(orders_a: PerOrder, orders_b: PerOrder) -> Paired:
    """The orders both runs judged (an order one run lacks says nothing of a change), summed
    per task (the key's first field)."""
    changes: dict[Any, float] = {}
    missing_a = missing_b = 0.0
    shared = orders_a.keys() & orders_b.keys()
    for key in shared:
        a, b = orders_a[key], orders_b[key]
        changes[key[0]] = changes.get(key[0], 0.0) + (b - a)
        missing_a += a
        missing_b += b
    return Paired(changes, len(shared), missing_a, missing_b)


def rise_p(changes: Sequence[float]) -> float:
    """One-sided p of a rise: P(sum e_t c_t >= sum c_t) over the 2^G equally likely sign
    vectors e of the G tasks whose change c_t is not 0, counted exactly up to
    :data:`EXACT_TASKS`."""
    values = [float(c) for c in changes if c]
    if not values:
        return 1.0
    observed = math.fsum(values)
    if len(values) <= EXACT_TASKS:
        return _enumerated(values, observed)
    if all(v.is_integer() for v in values):
        return ni.signflip_p([int(v) for v in values])
    sd = math.sqrt(math.fsum(v * v for v in values))
    return 1 - NormalDist().cdf(observed / sd)


def _enumerated(values: list[float], observed: float) -> float:
    """The share of the 2^G sign vectors whose signed sum reaches ``observed``: the sums of
    each half's 2^(G/2) vectors, one half sorted and searched for each sum of the other."""
    import numpy as np

    def sums(part: list[float]) -> Any:
        bits = (np.arange(2 ** len(part))[:, None] >> np.arange(len(part))) & 1
        return (2 * bits - 1) @ np.asarray(part, dtype=float)

    half = len(values) // 2
    left, right = sums(values[:half]), np.sort(sums(values[half:]))
    slack = 1e-9 * max(1.0, math.fsum(abs(v) for v in values))  # float sums of equal values
    reach = right.size - np.searchsorted(right, observed - left - slack, side="left")
    return float(min(1.0, reach.sum() / 2 ** len(values)))


def verdict_check(
    a: dict[str, Any], b: dict[str, Any], orders_a: PerOrder, orders_b: PerOrder
) -> dict[str, Any]:
    """Run B's missing-verdict share against the limit and against run A's on the orders both
    judged (``orders_*``: :data:`PerOrder`); ``failed`` names why the gate must fail, empty
    when it need not."""
    paired = paired_orders(orders_a, orders_b)
    p_value = rise_p(list(paired.changes.values()))
    rose = paired.missing_b > paired.missing_a and p_value < RISE_ALPHA
    limit = b["max_no_verdict_rate"]
    failed = []
    rate_b = b["no_verdict_rate"]
    if rate_b is not None and rate_b > limit:
        failed.append(
            f"run B has no verdict for {no_verdict(b, named=True)}, above the "
            f"{limit * 100:g}% limit"
        )
    if rose:
        failed.append(
            f"run B's orders without a verdict rose from {paired.missing_a:g} to "
            f"{paired.missing_b:g} of the {paired.orders} orders both runs judged ({RISE_TEST}: "
            f"p={p_value:.3g}, over {len(paired.changes)} tasks; run B overall: "
            f"{no_verdict(b, named=True)})"
        )
    return {
        "a": _brief(a),
        "b": _brief(b),
        "paired_orders": paired.orders,
        "paired_no_verdict": {"a": paired.missing_a, "b": paired.missing_b},
        "p_value": p_value,
        "test": RISE_TEST,
        "significant_rise": rose,
        "limit": limit,
        "failed": failed,
    }


def _brief(health: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in health.items() if k not in ("by_judge", "max_no_verdict_rate")}

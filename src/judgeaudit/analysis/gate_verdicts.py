"""Whether run B's judge gave verdicts: the gate's no-verdict reasons (``compare``).

A judge whose output does not parse leaves ties, and a tie is never a misselection, so a broken
judge would pass ``--fail-on-rise`` as an improvement. Two reasons fail the gate: run B's share
of judged orders without a verdict above the limit, or a significant rise from run A's.

The rise is tested task by task. The two orders of a pair, and the pairs of one task, fail to
parse together (one long transcript, one prompt), so a test over orders as independent draws
(Fisher's, before) calls a rise far more often than its level says (the unit tests measure it).
The exact task-level sign-flip test of the gate's misselection rows
(:func:`judgeaudit.analysis.noninferiority.signflip_p`) on each task's missing orders, B less A,
holds its level whatever the dependence inside a task.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.fmt import no_verdict

#: The rise is the rise side of a two-sided 5% test, the level the Fisher test had.
RISE_ALPHA = ni.ALPHA / 2
RISE_TEST = (
    "exact task-level sign-flip test of each shared task's share of orders without a verdict, "
    "run B less run A, "
    f"one-sided at {RISE_ALPHA:g} (the rise side of a two-sided {ni.ALPHA:g} test)"
)

PerTask = Mapping[Any, tuple[int, int]]  # task -> (orders without a verdict, orders)


def shared_tasks(per_task_a: PerTask, per_task_b: PerTask) -> list[Any]:
    """The tasks both runs judged orders of: a task one run lacks says nothing of a change."""
    return sorted(
        (t for t in set(per_task_a) & set(per_task_b) if per_task_a[t][1] and per_task_b[t][1]),
        key=str,
    )


def rise_p(per_task_a: PerTask, per_task_b: PerTask) -> float:
    """One-sided p of a rise in missing verdicts from A to B, by the task-level sign-flip test
    over the shared tasks. Each task's change is its share's, B less A, on a common scale
    (``k_b n_a - k_a n_b``): with the same orders in both runs, as where the gate pairs the
    same conversations, it is the count difference times the orders, so more orders, or a
    task only one run has, never pass for a rise. Divided by the values' common factor (the
    test does not depend on scale) to keep the exact convolution small."""
    values = []
    for t in shared_tasks(per_task_a, per_task_b):
        (k_a, n_a), (k_b, n_b) = per_task_a[t], per_task_b[t]
        values.append(k_b * n_a - k_a * n_b)
    common = math.gcd(*values) if any(values) else 1
    return ni.signflip_p([v // common for v in values])


def verdict_check(
    a: dict[str, Any], b: dict[str, Any], per_task_a: PerTask, per_task_b: PerTask
) -> dict[str, Any]:
    """Run B's missing-verdict share against the limit and against run A (``per_task_*``:
    each run's (missing, orders) per task); ``failed`` names why the gate must fail, empty
    when it need not."""
    p_value = rise_p(per_task_a, per_task_b)
    rate_a, rate_b = a["no_verdict_rate"], b["no_verdict_rate"]
    rose = rate_a is not None and rate_b is not None and rate_b > rate_a and p_value < RISE_ALPHA
    limit = b["max_no_verdict_rate"]
    failed = []
    if rate_b is not None and rate_b > limit:
        failed.append(
            f"run B has no verdict for {no_verdict(b, named=True)}, above the "
            f"{limit * 100:g}% limit"
        )
    if rose:
        failed.append(
            f"run B's no-verdict share rose from {no_verdict(a)} to {no_verdict(b, named=True)} "
            f"({RISE_TEST}: p={p_value:.3g}, over {len(shared_tasks(per_task_a, per_task_b))} "
            "tasks both runs judged)"
        )
    return {
        "a": _brief(a),
        "b": _brief(b),
        "p_value": p_value,
        "test": RISE_TEST,
        "significant_rise": rose,
        "limit": limit,
        "failed": failed,
    }


def _brief(health: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in health.items() if k not in ("by_judge", "max_no_verdict_rate")}

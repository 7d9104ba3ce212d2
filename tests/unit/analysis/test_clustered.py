"""Sums kept a pair at a time (the Run screen's live interval) equal the sums of the final
per-task counts, whatever order the pairs came in."""

from __future__ import annotations

import random

import pytest

from judgeaudit.analysis.clustered import Sums


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_moved_one_pair_at_a_time_equals_of(seed: int) -> None:
    rng = random.Random(seed)
    pairs = [(f"t{rng.randrange(8)}", rng.random() < 0.6, rng.random() < 0.3) for _ in range(200)]
    per_task: dict[str, tuple[int, int]] = {}
    sums = Sums(0, 0, 0, 0, 0, 0)
    for task, decisive, wrong in pairs:
        k, n = before = per_task.get(task, (0, 0))
        after = per_task[task] = (k + (decisive and wrong), n + decisive)
        sums = sums.moved(before, after)
    assert sums == Sums.of([(float(k), float(n)) for k, n in per_task.values()])


def test_a_task_without_a_decisive_pair_is_no_cluster() -> None:
    sums = Sums(0, 0, 0, 0, 0, 0).moved((0, 0), (0, 0)).moved((0, 0), (1, 2))
    assert sums == Sums(1, 2, 1, 2, 4, 1)

"""Sums kept a pair at a time (the Run screen's live interval) equal the sums of the final
per-task counts, whatever order the pairs came in; several parts summed in one scan equal
each part's own."""

from __future__ import annotations

import random

import pytest

from judgeaudit.analysis.clustered import Sums, grouped_parts, grouped_sums


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


def test_parts_in_one_scan_equal_each_parts_own_sums() -> None:
    """Several (nums, den) parts in one scan give each part the sums its own scan gives, by hand
    with Sums.of: a part is over the tasks where its own denominator is above 0, and a group
    where it is 0 everywhere has None for that part (group g2 has no b at all)."""
    import sqlite3

    rng = random.Random(5)
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE p (g TEXT, task_id TEXT, a INTEGER, x INTEGER, b INTEGER, y INTEGER)")
    rows = []
    for _ in range(300):
        g, task = rng.choice(["g1", "g2"]), f"t{rng.randrange(9)}"
        a = int(rng.random() < 0.7)
        b = int(g == "g1" and task != "t3" and rng.random() < 0.5)
        rows.append((g, task, a, int(a and rng.random() < 0.3), b, int(b and rng.random() < 0.6)))
    db.executemany("INSERT INTO p VALUES (?, ?, ?, ?, ?, ?)", rows)
    found = grouped_parts(db, ["g"], [(["x"], "a"), (["y", "b"], "b")], "p")

    def by_hand(group: str, num: int, den: int) -> Sums:
        per: dict[str, tuple[float, float]] = {}
        for r in rows:
            if r[0] == group:
                k, n = per.get(str(r[1]), (0.0, 0.0))
                per[str(r[1])] = (k + int(r[num]), n + int(r[den]))
        return Sums.of(list(per.values()))

    for group in ("g1", "g2"):
        first, second = found[(group,)]
        assert first == [by_hand(group, 3, 2)]
        assert first == grouped_sums(db, ["g"], ["x"], "a", "p")[(group,)]
        if group == "g2":
            assert second is None and (group,) not in grouped_sums(db, ["g"], ["y"], "b", "p")
        else:
            assert second == [by_hand(group, 5, 4), by_hand(group, 4, 4)]

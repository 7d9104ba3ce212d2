"""``builtin:retail-xN``: the 42 task templates over fresh orders N times, so a judge gate has
more independent tasks (docs/gate.md). Deterministic, state-checked, and the demo's 42 unchanged."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from judgeaudit.audit.tasks import builtin_retail, load_tasks
from judgeaudit.audit.tasks.domain import Environment
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.tasks.success import state_check


def test_the_grown_set_starts_with_the_demo_tasks_and_is_the_same_every_time() -> None:
    grown = load_tasks("builtin:retail-x4")
    assert len(grown) == 4 * 42
    assert grown[:42] == builtin_retail() == load_tasks("builtin:retail-x1")
    assert grown == load_tasks("builtin:retail-x4")  # data, not a draw
    assert len({t.task_id for t in grown}) == len(grown)
    # each copy has the templates' mix of task types, over orders no other copy uses
    for copy in range(4):
        part = grown[copy * 42 : (copy + 1) * 42]
        assert Counter(t.task_type for t in part) == Counter(t.task_type for t in grown[:42])
    openings = [t.goal("en").splitlines()[0] for t in grown]
    assert len(set(openings)) == len(openings), "every task asks about its own order"


def test_every_grown_refund_is_state_checked_like_the_demo_ones() -> None:
    """The refund tasks of the last copy: the right refund (and telling its amount) succeeds;
    refunding another item of the order or telling nothing fails."""
    tasks = [t for t in load_tasks("builtin:retail-x5")[4 * 42 :] if t.task_type == "refund"]
    assert tasks
    for task in tasks:
        goal = task.goal("en")
        order = goal.split("order ")[1].split(".")[0]
        item = goal.split("item ")[1].split(" ")[0]
        env = Environment(task.initial_state)
        result = env.call("refund_item", json.dumps({"order_id": order, "item_id": item}))
        told = f"Refunded {result['amount']}"
        assert state_check(task, env.state, told).success
        assert not state_check(task, env.state, "All done!").success
        wrong = Environment(task.initial_state)
        other = next(i for i in task.initial_state["orders"][order]["items"] if i != item)
        wrong.call("refund_item", json.dumps({"order_id": order, "item_id": other}))
        assert not state_check(task, wrong.state, told).success
        assert not state_check(task, task.initial_state, told).success


@pytest.mark.parametrize("name", ["builtin:retail-x0", "builtin:retail-x151", "builtin:retail-x02",
                                  "builtin:retail-xx", "builtin:shop-x2"])  # fmt: skip
def test_an_unknown_or_out_of_range_set_is_refused_in_one_line(name: str) -> None:
    with pytest.raises(TaskError) as caught:
        load_tasks(name)
    message = str(caught.value)
    assert "\n" not in message and name in message and "builtin:retail-xN" in message

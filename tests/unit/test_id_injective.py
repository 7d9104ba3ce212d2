"""Different pairs and trajectories get different ids (audit/units/ids.py) under the agent-name
rule of agentnames.py: no agent name has a part between slashes that ids read as a trial. Over
every combination of task ids and agent names built from slashes, trial-like parts and tildes,
two different keys never share an id; without the rule they do (a new user's finding: one
pair dropped, its run never complete)."""

from __future__ import annotations

import itertools

from judgeaudit.agentnames import agent_name_problem
from judgeaudit.audit.units.ids import pair_id, pair_id_parts, swapped_pair_id, traj_id

PARTS = ["x", "y", "t0", "t1", "t0~t1", "x~y"]
TASKS = sorted(
    {"/".join(p) for n in (1, 2) for p in itertools.product(PARTS, repeat=n)}
    | {"x/t0/y", "t0/t1/x", "x/t1/t0", "x/t0~t1/y"}
)
NAMES = sorted(
    {"/".join(p) for n in (1, 2) for p in itertools.product(PARTS[:4], repeat=n)}
    | {"y/t0/x", "x/t1/y", "x/y/x"}
)
TRIALS = (0, 1)


def _collisions(agents: list[str]) -> tuple[int, int]:
    pairs: dict[str, tuple[object, ...]] = {}
    sides: dict[str, tuple[object, ...]] = {}
    found_pairs = found_sides = 0
    for task, a, b, ta, tb in itertools.product(TASKS, agents, agents, TRIALS, TRIALS):
        if a == b and ta == tb:
            continue
        key = (task, a, b, ta, tb)
        found_pairs += pairs.setdefault(pair_id("R", task, ta, a, b, tb), key) != key
    for task, agent, trial in itertools.product(TASKS, agents, TRIALS):
        side = (task, agent, trial)
        found_sides += sides.setdefault(traj_id("R", task, agent, trial), side) != side
    return found_pairs, found_sides


def test_no_two_keys_share_an_id_when_agent_names_pass_the_rule() -> None:
    allowed = [n for n in NAMES if agent_name_problem(n) is None]
    assert "x/y" in allowed and "t0" not in allowed and "x/t1/y" not in allowed
    assert _collisions(allowed) == (0, 0)


def test_without_the_rule_two_keys_share_an_id() -> None:
    """The check above can fail: the names it leaves out make ids collide."""
    pairs, sides = _collisions([n for n in NAMES if "~" not in n])
    assert pairs > 0 and sides > 0


def test_a_pair_id_splits_back_into_task_trials_and_agents() -> None:
    """The live judge log names a pair by its id alone: read back, the id gives its task with
    its trials and both agents, whatever slashes, tildes and trial-like parts tasks hold; and
    `show`'s "did you mean" turns the agents round in a whole id or its tail."""
    allowed = [n for n in NAMES if agent_name_problem(n) is None]
    for task, a, b, ta, tb in itertools.product(TASKS, allowed, allowed, TRIALS, TRIALS):
        trials = f"t{ta}" if ta == tb else f"t{ta}~t{tb}"
        assert pair_id_parts(pair_id("R", task, ta, a, b, tb)) == (f"{task}/{trials}", a, b)
        swapped = pair_id("R", task, ta, b, a, tb) if a != b else None
        assert swapped_pair_id(pair_id("R", task, ta, a, b, tb)) == swapped
        tail = f"{trials}/{a}~{b}"  # an id's tail, as `show` takes it
        assert swapped_pair_id(tail) == (f"{trials}/{b}~{a}" if a != b else None)
    assert pair_id_parts("R/x/t0/openai/gpt-4o~acme/small") == (
        "x/t0",
        "openai/gpt-4o",
        "acme/small",
    )

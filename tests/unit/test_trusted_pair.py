"""A pairs file ``import`` recorded is not validated again by the run: its rows are built by
``trusted_pair``, which must give exactly what ``parse_pair`` gives for every row it accepts
(else a run's stored rows would depend on whether the record was there)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from judgeaudit.audit.inputs.imported import parse_pair, trusted_pair

BASE: dict[str, Any] = {
    "task_id": "t1",
    "task": "goal",
    "agent_a": "model-x",
    "agent_b": "model-y",
    "trajectory_a": [{"role": "user", "content": "hi"}, {"role": "agent", "content": "ok"}],
    "trajectory_b": "user: hi\nagent: no",
    "success_a": 1,
    "success_b": 0,
}
OPTIONAL: dict[str, list[Any]] = {
    "task_id": ["7", "t-9"],  # a number is refused (quoted_task_id): never a trusted row
    "success_a": [True, False, 0],
    "pair_id": ["p1"],
    "task_type": ["refund"],
    "context": ["", "policy text"],
    "trial": [0, 3],
    "reward_a": [1, 0.25, -2],
    "reward_b": [0, 1.0],
    "satisfied_a": [True, 0, 1],
    "satisfied_b": [False],
    "judge_model": ["rm-judge"],
    "judge_prompt_hash": ["abc123"],
    "meta": [{"k": "v"}],
    "period": ["2026-11-03", " 2026-W45 "],
    "verdicts": [
        [{"order": "AB", "winner": "A", "score_a": 4, "score_b": 2.5}],
        [
            {"order": "BA", "winner": "tie", "raw_output": "x", "reasons": ["a"]},
            {"order": "AB", "winner": "B", "score_a": None, "reasons": []},
        ],
        [  # no verdict, as import writes it (and as a hand-written pairs file may)
            {
                "order": "AB",
                "winner": None,
                "score_a": None,
                "score_b": None,
                "raw_output": "{",
                "reasons": [],
                "parse_error": "invalid JSON",
            },
            {"order": "BA", "winner": None},
        ],
    ],
}


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_trusted_pair_gives_what_parse_pair_gives_for_every_accepted_row(data: Any) -> None:
    row = copy.deepcopy(BASE)
    for name, values in OPTIONAL.items():
        if data.draw(st.booleans()):
            row[name] = copy.deepcopy(data.draw(st.sampled_from(values)))
    if "trial" not in row and data.draw(st.booleans()):
        row["trial_a"], row["trial_b"] = 0, data.draw(st.integers(1, 5))
    assert trusted_pair(copy.deepcopy(row), "f:1") == parse_pair(copy.deepcopy(row), "f:1")

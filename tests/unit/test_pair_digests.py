"""The cross-row checks' digests (audit/inputs/pair_checks.py): a task's and a side's digest
are equal exactly when their JSON texts are (keys sorted), whichever way each was taken: the
tuple hash for texts, scalars and no events, the encoded JSON for the rest. Reference: the
standard library's ``json.dumps``, compared over every combination of a small set of values
that differ in type only (True and 1, 1 and 1.0, 0.0 and -0.0, None and "None", [] and "")."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from judgeaudit.audit.inputs.pair_checks import _side_digest, _task_digest


def _json(values: list[Any]) -> str:
    return json.dumps(values, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


EVENTS: list[Any] = [
    [],
    [{"role": "user", "content": "hi"}],
    [{"content": "hi", "role": "user"}],
    "",
]
FLAGS: list[Any] = [True, False, 1, 0, None]
REWARDS: list[Any] = [None, 0.0, -0.0, 1, 1.0, 0.5, "1", "None"]


def _agree(rows: list[tuple[Any, ...]], digest: Any) -> None:
    seen: dict[int, str] = {}
    for row in rows:
        text = _json(list(row))
        found = seen.setdefault(digest(*row), text)
        assert found == text, f"{row}: digest shared with {found}"
    by_text: dict[str, int] = {}
    for row in rows:
        got = by_text.setdefault(_json(list(row)), digest(*row))
        assert got == digest(*row), f"{row}: equal JSON, another digest"


def test_a_side_digest_is_shared_exactly_by_equal_json() -> None:
    _agree(list(itertools.product(EVENTS, FLAGS, REWARDS, FLAGS)), _side_digest)


def test_a_task_digest_is_shared_exactly_by_equal_json() -> None:
    """Instructions as parse_pair builds them (texts by language), in either key order, and
    shapes it never builds (a plain text, a number inside), which take the encoded path."""
    texts = ["refund", "", "None", "任务"]
    instructions: list[Any] = [
        {"en": "task t1"}, {"en": "None"}, {"en": "task t1", "zh": "任务"},
        {"zh": "任务", "en": "task t1"}, {}, {"en": 1}, "task t1",
    ]  # fmt: skip
    contexts: list[Any] = [None, "", "None", "ctx", 0, {"k": 1}]
    _agree(list(itertools.product(texts, instructions, contexts)), _task_digest)


def test_the_task_digest_of_a_parsed_pair_takes_the_tuple_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fast path is the one a real pair takes (it never did: parse_pair's instruction is a
    dict, which the first version did not expect)."""
    from judgeaudit.audit.inputs import pair_checks
    from judgeaudit.audit.inputs.imported import parse_pair

    row = {"pair_id": "p", "task_id": "t1", "task": "Refund it", "agent_a": "a", "agent_b": "b",
           "trajectory_a": [], "trajectory_b": [], "success_a": 1, "success_b": 0}  # fmt: skip
    task = parse_pair(row, "f:1").task

    def refuse(value: Any) -> int:
        raise AssertionError(f"encoded {value!r}")

    monkeypatch.setattr(pair_checks, "_same", refuse)
    pair_checks._task_digest(task.task_type, task.instruction, None)

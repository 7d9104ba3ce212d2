"""The cross-row checks' digests (audit/inputs/pair_checks.py): a task's and a side's digest
are equal exactly when their JSON texts are (keys sorted), whichever way each was taken: the
tuple hash for texts, scalars and no events, the encoded JSON for the rest. Reference: the
standard library's ``json.dumps``, compared over every combination of a small set of values
that differ in type only (True and 1, 1 and 1.0, 0.0 and -0.0, None and "None", [] and "")."""

from __future__ import annotations

import itertools
import json
from typing import Any

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
    texts = ["refund", "task t1", "", "None", "任务"]
    contexts: list[Any] = [None, "", "None", "ctx", 0, {"k": 1}]
    _agree(list(itertools.product(texts, texts, contexts)), _task_digest)

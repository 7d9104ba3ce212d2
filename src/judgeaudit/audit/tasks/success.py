"""Task success from verifiable state, and the optional LLM candidate label."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from judgeaudit.audit.tasks import Task
from judgeaudit.audit.tasks.domain import State


@dataclass(frozen=True)
class Check:
    success: bool
    detail: dict[str, Any]


def state_check(task: Task, final_state: State, agent_text: str) -> Check:
    """Success = final state equals the expected state and every required fact was told."""
    state_ok = final_state == task.expected_state
    lowered = agent_text.lower()
    missing = [f for f in task.required_facts if f.lower() not in lowered]
    diff = [] if state_ok else _diff(task.expected_state, final_state)
    return Check(
        state_ok and not missing,
        {"state_ok": state_ok, "state_diff": diff, "missing_facts": missing},
    )


def _diff(expected: Any, actual: Any, path: str = "") -> list[str]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[str] = []
        for key in sorted(set(expected) | set(actual)):
            out += _diff(expected.get(key), actual.get(key), f"{path}.{key}" if path else key)
        return out[:20]
    if expected != actual:
        return [f"{path}: expected {json.dumps(expected)[:80]}, got {json.dumps(actual)[:80]}"]
    return []

"""A task: its goal lines, its start state and the state that counts as success, with the hash
that makes a task set part of the run's identity.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from judgeaudit.audit.tasks.domain import Environment, State
from judgeaudit.audit.tasks.errors import TaskError

TASK_TYPES = (
    "refund",
    "order_modification",
    "multi_turn_confirmation",
    "tool_failure",
    "info_only",
)


@dataclass(frozen=True)
class Task:
    task_id: str
    task_type: str
    instruction: dict[str, str]  # language -> the user simulator's goal lines
    initial_state: State
    expected_state: State
    required_facts: list[str] = field(default_factory=list)
    fail_once: str | None = None

    def goal(self, language: str) -> str:
        return self.instruction.get(language) or next(iter(self.instruction.values()))

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "task_type": self.task_type,
            "instruction": self.instruction,
            "required_facts": self.required_facts,
            "fail_once": self.fail_once,
        }


def expected_after(state: State, actions: list[tuple[str, dict[str, Any]]]) -> State:
    env = Environment(state)
    for index, (name, args) in enumerate(actions):
        result = env.call(name, json.dumps(args))
        if "error" in result:
            raise TaskError(
                f"actions[{index}]: {name}({json.dumps(args, ensure_ascii=False)}) fails on the "
                f"task's own state: {result['error']}"
            )
    return env.state


def task_set_hash(tasks: list[Task]) -> str:
    blob = json.dumps(
        [[t.to_json(), t.initial_state, t.expected_state] for t in tasks], sort_keys=True
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]

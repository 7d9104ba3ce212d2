"""Judge-only audits on imported trajectories (for engineers who already have rollouts).

One JSON object per line::

    {"task_id": "t1", "task": "goal text", "task_type": "refund",
     "agent_a": "model-x", "agent_b": "model-y",
     "trajectory_a": [{"role": "user", "content": "..."}, {"role": "agent", "content": "..."}],
     "trajectory_b": "user: ...\\nagent: ...",
     "success_a": 1, "success_b": 0,
     "reward_a": 0.7, "reward_b": 0.2, "satisfied_a": true, "satisfied_b": false}

``reward_*`` and ``satisfied_*`` are optional. Tool events may appear as
``{"role": "tool_call", "name": ..., "arguments": "..."}`` / ``{"role": "tool_result", ...}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit.audit.ids import traj_id
from judgeaudit.audit.jsonl import read_objects
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.tasks import TASK_TYPES, Task
from judgeaudit.audit.tasks_errors import TaskError

ROLES = ("user", "agent", "tool_call", "tool_result")


@dataclass(frozen=True)
class ImportedPair:
    task: Task
    agent_a: str
    agent_b: str
    events_a: list[dict[str, Any]]
    events_b: list[dict[str, Any]]
    success_a: bool
    success_b: bool
    reward_a: float | None
    reward_b: float | None
    satisfied_a: bool | None
    satisfied_b: bool | None


def load_imported(path: Path) -> list[ImportedPair]:
    out: list[ImportedPair] = []
    seen: set[tuple[str, str, str]] = set()
    for where, row in read_objects(path, "pair"):
        pair = _pair(row, where)
        key = (pair.task.task_id, pair.agent_a, pair.agent_b)
        if key in seen:
            raise TaskError(f"{where}: task_id/agent_a/agent_b {key} appears twice")
        seen.add(key)
        out.append(pair)
    return out


def _pair(row: dict[str, Any], where: str) -> ImportedPair:
    for name in (
        "task_id",
        "task",
        "agent_a",
        "agent_b",
        "trajectory_a",
        "trajectory_b",
        "success_a",
        "success_b",
    ):
        if name not in row:
            raise TaskError(f"{where}: {name}: missing (see the imported-pairs format in README)")
    if row["agent_a"] == row["agent_b"]:
        raise TaskError(f"{where}: agent_b: must differ from agent_a")
    task_type = row.get("task_type", "imported")
    if task_type not in (*TASK_TYPES, "imported"):
        raise TaskError(f"{where}: task_type: {task_type!r} is not one of {', '.join(TASK_TYPES)}")
    task = Task(str(row["task_id"]), task_type, {"en": str(row["task"])}, {}, {})
    return ImportedPair(
        task=task,
        agent_a=str(row["agent_a"]),
        agent_b=str(row["agent_b"]),
        events_a=_events(row["trajectory_a"], f"{where}: trajectory_a"),
        events_b=_events(row["trajectory_b"], f"{where}: trajectory_b"),
        success_a=_flag(row["success_a"], f"{where}: success_a"),
        success_b=_flag(row["success_b"], f"{where}: success_b"),
        reward_a=_number(row.get("reward_a"), f"{where}: reward_a"),
        reward_b=_number(row.get("reward_b"), f"{where}: reward_b"),
        satisfied_a=None if row.get("satisfied_a") is None else _flag(row["satisfied_a"], where),
        satisfied_b=None if row.get("satisfied_b") is None else _flag(row["satisfied_b"], where),
    )


def _events(raw: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(raw, str):
        events = []
        for line in raw.splitlines():
            role, sep, text = line.partition(":")
            if sep and role.strip() in ("user", "agent"):
                events.append({"role": role.strip(), "content": text.strip()})
            elif line.strip():
                raise TaskError(f"{where}: line {line[:40]!r} must start with 'user:' or 'agent:'")
        return events
    if not isinstance(raw, list):
        raise TaskError(f"{where}: give a list of events or a 'user: ...' transcript string")
    for index, event in enumerate(raw):
        if not isinstance(event, dict) or event.get("role") not in ROLES:
            raise TaskError(f"{where}[{index}].role: must be one of {', '.join(ROLES)}")
        if event["role"] in ("user", "agent") and not isinstance(event.get("content"), str):
            raise TaskError(f"{where}[{index}].content: must be a string")
    return list(raw)


def _flag(value: Any, where: str) -> bool:
    if value in (0, 1, True, False):
        return bool(value)
    raise TaskError(f"{where}: must be 0/1 or true/false, got {value!r}")


def _number(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TaskError(f"{where}: must be a number")
    return float(value)


def save_imported(
    store: AuditStore, run_id: str, pairs: list[ImportedPair], done: set[str]
) -> None:
    """Store both sides of every imported pair as trajectories (skipping those already stored)."""
    for p in pairs:
        for agent, events, success, reward, satisfied in (
            (p.agent_a, p.events_a, p.success_a, p.reward_a, p.satisfied_a),
            (p.agent_b, p.events_b, p.success_b, p.reward_b, p.satisfied_b),
        ):
            key = traj_id(run_id, p.task.task_id, agent, 0)
            if key in done:
                continue
            done.add(key)
            store.save_trajectory(
                {
                    "traj_id": key,
                    "run_id": run_id,
                    "task_id": p.task.task_id,
                    "task_type": p.task.task_type,
                    "agent": agent,
                    "trial": 0,
                    "events": json.dumps(events, ensure_ascii=False),
                    "ending": "imported",
                    "satisfied": None if satisfied is None else int(satisfied),
                    "success": int(success),
                    "success_source": "import",
                    "external_reward": reward,
                },
                [],
            )

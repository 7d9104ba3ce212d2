"""What every rollout reader yields, and the OpenAI-format JSONL reader.

Each reader yields :class:`Rollout` records (one agent's trajectory of one task and trial) and,
for the JSONL format, :class:`Verdict` records; anything that cannot be used is either a one-line
error (a broken file) or a skip with a reason (an unfinished simulation), never a guess: a missing
or mistyped field is refused, not replaced by a default. τ-bench and τ²-bench live in
:mod:`judgeaudit.rollouts.tau`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.agentnames import agent_name_problem, task_id
from judgeaudit.audit.inputs.imported import LOG_IMPORTS, RECORDED
from judgeaudit.audit.inputs.verdict_rules import PARSE_ERROR, line_verdict
from judgeaudit.audit.inputs.verdict_rules import VERDICT_KEYS as BODY_KEYS
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.rollouts.messages import RolloutError, convert
from judgeaudit.validate import (
    flag,
    integer,
    iter_jsonl,
    json_type,
    loads_json,
    number,
    read_text,
    unknown_field,
)

MAX_TRIAL = 1_000_000


@dataclass(frozen=True)
class Rollout:
    task_id: str
    agent: str
    trial: int
    task: str
    task_type: str
    context: str | None
    events: list[dict[str, Any]]
    success: bool
    reward: float | None
    satisfied: bool | None
    where: str
    #: Where the task text, task type and context came from, for a conflict's one-line error;
    #: ``task_at`` is empty when the text was derived (the first user message), not declared.
    task_at: str = ""
    type_at: str = ""
    context_at: str = ""
    trial_given: bool = True
    #: Set when success was read off the reward (τ-bench, τ²-bench): where that reward is.
    reward_at: str | None = None


@dataclass(frozen=True)
class Verdict:
    """A judge verdict already given; ``winner`` and scores are in the pair's own A/B terms."""

    task_id: str
    trial_a: int
    trial_b: int
    agent_a: str
    agent_b: str
    body: dict[str, Any]  # order, winner, score_a, score_b, raw_output, reasons, parse_error
    judge_model: str | None
    prompt_hash: str | None
    where: str


@dataclass
class Skips:
    """What was read but not used, with why (printed by ``judgeaudit import``)."""

    reasons: list[str] = field(default_factory=list)
    count: int = 0
    keep: int = 1000  # a production log can skip millions of rows: count them all, keep a few

    def add(self, where: str, reason: str) -> None:
        self.count += 1
        if len(self.reasons) < self.keep:
            self.reasons.append(f"{where}: {reason}")


def ident(value: Any, where: str) -> str:
    """A task id in a rollout file (:func:`judgeaudit.agentnames.task_id`)."""
    return task_id(value, where, RolloutError)


def agent_name(value: Any, where: str) -> str:
    """An agent name: a one-line string (a number is refused: it is a mistyped field, and
    ``5`` next to ``gpt-4o`` in a report names nothing)."""
    if not isinstance(value, str):
        raise RolloutError(f"{where}: must be a string, got {json_type(value)}; name the agent")
    if not value.strip():
        raise RolloutError(f"{where}: {value!r} is not a usable name; give a one-line name")
    if (problem := agent_name_problem(value)) is not None:
        raise RolloutError(f"{where}: {problem}")
    return value


def file_agent(path: Path) -> str:
    """The agent named after a results file (no ``--agent``)."""
    return untyped_agent(path.stem, str(path), f"the file's name {path.stem!r} names its agent")


def untyped_agent(value: str, where: str, named_by: str) -> str:
    """An agent name the user never typed (a file's name, a results file's field), refused in
    one line that says where it came from and how to name the agent instead."""
    try:
        return agent_name(value, where)
    except RolloutError as exc:
        raise RolloutError(f"{exc}; without --agent {named_by}: pass --agent NAME") from None


def text_field(value: Any, where: str) -> str:
    """A non-empty string field."""
    if not isinstance(value, str):
        raise RolloutError(f"{where}: must be a string, got {json_type(value)}")
    if not value.strip():
        raise RolloutError(f"{where}: is empty; give the text")
    return value


def obj(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (for optional nested metadata)."""
    return value if isinstance(value, dict) else {}


def first_user(events: list[dict[str, Any]]) -> str:
    return next((e["content"] for e in events if e["role"] == "user" and e["content"]), "")


def reward_success(value: Any, where: str) -> tuple[bool, float]:
    reward = number(value, where, -1e12, 1e12, RolloutError)
    return math.isclose(reward, 1.0, abs_tol=1e-9), reward


def not_empty(events: list[dict[str, Any]], where: str) -> None:
    """A trajectory with nothing in it would be judged as an empty conversation: refuse it."""
    if not events:
        raise RolloutError(
            f"{where}: holds no user, assistant or tool message; a trajectory with nothing in it "
            "cannot be judged (drop the record, or fix the export)"
        )


def load_json(path: Path, what: str) -> Any:
    """A whole-file JSON document (τ-bench, τ²-bench), with a hint that fits one."""
    text = read_text(path, "results", RolloutError)
    return loads_json(text, str(path), "results", RolloutError, document=what)


# --- OpenAI-format JSONL ------------------------------------------------------------------

TRAJECTORY_KEYS = (
    "type", "task_id", "agent", "trial", "messages", "success", "reward", "task", "task_type",
    "satisfied", "context", "meta",
)  # fmt: skip
VERDICT_KEYS = (
    "type", "task_id", "agent_a", "agent_b", "trial", "trial_a", "trial_b", "order", "winner",
    "score_a", "score_b", "raw_output", "reasons", "parse_error", "judge_model", "prompt_hash",
)  # fmt: skip


def read_openai_jsonl(path: Path, agent: str | None, skips: Skips) -> Iterator[Rollout | Verdict]:
    """One trajectory per line ({task_id, agent, trial, messages, success, ...}), streaming;
    lines with ``"type": "verdict"`` carry a recorded judge verdict for a pair."""
    for where, _line, row in iter_jsonl(path, "trajectory", RolloutError):
        kind = row.get("type", "trajectory")
        if kind == "verdict":
            yield parse_verdict(row, where)
            continue
        if kind != "trajectory":
            needs = LOG_IMPORTS.get(str(kind))  # which import reads a line of that type
            also = f" (a recorded log's {kind}: `import {needs}`)" if needs == RECORDED else ""
            raise RolloutError(f'{where}: type: {kind!r}; use "trajectory" or "verdict"{also}')
        for key in row:
            if key not in TRAJECTORY_KEYS:
                raise RolloutError(unknown_field(where, key, TRAJECTORY_KEYS))
        for key in ("task_id", "messages", "success"):
            if key not in row:
                raise RolloutError(
                    f"{where}: {key}: missing (see the openai-jsonl format in docs/rollouts.md)"
                )
        if "agent" in row:
            name = agent_name(row["agent"], f"{where}: agent")
        elif agent is not None:
            name = agent
        else:
            raise RolloutError(
                f"{where}: agent: missing; give each line an agent, or pass --agent NAME for "
                f"{path.name}"
            )
        events, context = convert(row["messages"], f"{where}: messages")
        given = row.get("context")
        if given is not None and not isinstance(given, str):
            raise RolloutError(f"{where}: context: must be a string")
        task = row.get("task")
        if task is not None and (not isinstance(task, str) or not task.strip()):
            raise RolloutError(f"{where}: task: must be a non-empty string")
        task_type = row.get("task_type", "imported")
        if not isinstance(task_type, str) or not task_type.strip():
            raise RolloutError(f"{where}: task_type: must be a non-empty string")
        reward = row.get("reward")
        satisfied = row.get("satisfied")
        success = flag(row["success"], f"{where}: success", RolloutError)
        not_empty(events, f"{where}: messages")
        yield Rollout(
            task_id=ident(row["task_id"], f"{where}: task_id"),
            agent=name,
            trial=integer(row.get("trial", 0), f"{where}: trial", 0, MAX_TRIAL, RolloutError),
            task=task or first_user(events) or f"task {row['task_id']}",
            task_type=task_type,
            context=given if given is not None else context,
            events=events,
            success=success,
            reward=None
            if reward is None
            else number(reward, f"{where}: reward", -1e12, 1e12, RolloutError),
            satisfied=None
            if satisfied is None
            else flag(satisfied, f"{where}: satisfied", RolloutError),
            where=where,
            task_at=f"{where}: task" if task is not None else "",
            type_at=f"{where}: task_type",
            context_at=f"{where}: context" if given is not None else f"{where}: messages (system)",
            trial_given="trial" in row,
        )


def parse_verdict(row: dict[str, Any], where: str) -> Verdict:
    for key in row:
        if key not in VERDICT_KEYS:
            raise RolloutError(unknown_field(where, key, VERDICT_KEYS))
    for key in ("task_id", "agent_a", "agent_b", "order", "winner"):
        if key not in row:
            raise RolloutError(f"{where}: {key}: missing (a verdict names its pair and winner)")
    trial = integer(row.get("trial", 0), f"{where}: trial", 0, MAX_TRIAL, RolloutError)
    body: dict[str, Any] = {k: row[k] for k in (*BODY_KEYS, PARSE_ERROR) if k in row}
    try:  # at its own line: the pair it joins is checked later, under the trajectories' lines
        line_verdict(body, where)
    except TaskError as exc:
        raise RolloutError(str(exc)) from None
    for key in ("judge_model", "prompt_hash"):
        if row.get(key) is not None and not isinstance(row[key], str):
            raise RolloutError(f"{where}: {key}: must be a string")
    return Verdict(
        task_id=ident(row["task_id"], f"{where}: task_id"),
        trial_a=integer(row.get("trial_a", trial), f"{where}: trial_a", 0, MAX_TRIAL, RolloutError),
        trial_b=integer(row.get("trial_b", trial), f"{where}: trial_b", 0, MAX_TRIAL, RolloutError),
        agent_a=agent_name(row["agent_a"], f"{where}: agent_a"),
        agent_b=agent_name(row["agent_b"], f"{where}: agent_b"),
        body=body,
        judge_model=row.get("judge_model"),
        prompt_hash=row.get("prompt_hash"),
        where=where,
    )


def dumps(value: Any) -> str:
    """One JSONL line: non-ASCII kept as is, so text survives byte for byte."""
    return _LINE(value)


#: ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` with one encoder for every
#: line (with options, ``json.dumps`` builds a new one per call: millions on a large log).
_LINE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

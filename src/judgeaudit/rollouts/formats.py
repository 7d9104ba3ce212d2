"""Readers for τ-bench results, τ²-bench saved results and OpenAI-format JSONL.

Each yields :class:`Rollout` records (one agent's trajectory of one task and trial) and, for
the JSONL format, :class:`Verdict` records; anything that cannot be used is either a one-line
error (a broken file) or a skip with a reason (an unfinished simulation), never a guess.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.rollouts.messages import RolloutError, convert
from judgeaudit.validate import flag, integer, iter_jsonl, json_type, loads_json, number, read_text

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


@dataclass(frozen=True)
class Verdict:
    """A judge verdict already given; ``winner`` and scores are in the pair's own A/B terms."""

    task_id: str
    trial_a: int
    trial_b: int
    agent_a: str
    agent_b: str
    body: dict[str, Any]  # order, winner, score_a, score_b, raw_output, reasons
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


def _ident(value: Any, where: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value
    raise RolloutError(f"{where}: must be a non-empty string or an integer, got {json_type(value)}")


def obj(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (for optional nested metadata)."""
    return value if isinstance(value, dict) else {}


def _first_user(events: list[dict[str, Any]]) -> str:
    return next((e["content"] for e in events if e["role"] == "user" and e["content"]), "")


def _reward(value: Any, where: str) -> tuple[bool, float]:
    reward = number(value, where, -1e12, 1e12, RolloutError)
    return math.isclose(reward, 1.0, abs_tol=1e-9), reward


def _load_json(path: Path) -> Any:
    return loads_json(read_text(path, "results", RolloutError), str(path), "results", RolloutError)


# --- τ-bench ------------------------------------------------------------------------------


def read_tau_bench(path: Path, agent: str, skips: Skips) -> Iterator[Rollout]:
    """τ-bench results: a list of {task_id, trial, reward, traj: [messages], info}."""
    data = _load_json(path)
    if not isinstance(data, list):
        raise RolloutError(
            f"{path}: expected τ-bench results (a JSON list of {{task_id, reward, traj}}), "
            f"got {json_type(data)}"
        )
    for index, item in enumerate(data):
        at = f"{path}: [{index}]"
        if not isinstance(item, dict):
            raise RolloutError(f"{at}: must be an object, got {json_type(item)}")
        for key in ("task_id", "reward", "traj"):
            if key not in item:
                raise RolloutError(
                    f"{at}.{key}: missing; τ-bench results carry task_id, reward, traj"
                )
        events, context = convert(item["traj"], f"{at}.traj")
        info = obj(item.get("info"))
        task_info = obj(info.get("task"))
        instruction = task_info.get("instruction")
        task = instruction if isinstance(instruction, str) and instruction.strip() else ""
        success, reward = _reward(item["reward"], f"{at}.reward")
        yield Rollout(
            task_id=_ident(item["task_id"], f"{at}.task_id"),
            agent=agent,
            trial=integer(item.get("trial", 0), f"{at}.trial", 0, MAX_TRIAL, RolloutError),
            task=task or _first_user(events) or f"τ-bench task {item['task_id']}",
            task_type=str(info.get("domain") or "tau-bench"),  # free-form
            context=context,
            events=events,
            success=success,
            reward=reward,
            satisfied=None,
            where=at,
        )


# --- τ²-bench -----------------------------------------------------------------------------


def read_tau2_bench(path: Path, agent: str | None, skips: Skips) -> Iterator[Rollout]:
    """τ²-bench saved results: {info, tasks, simulations: [{task_id, trial, reward_info, messages}]}."""
    data = _load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("simulations"), list):
        raise RolloutError(
            f"{path}: simulations: missing; expected τ²-bench results "
            "({info, tasks, simulations: [...]})"
        )
    info = obj(data.get("info"))
    env = obj(info.get("environment_info"))
    agent_info = obj(info.get("agent_info"))
    name = agent or (agent_info.get("llm") if isinstance(agent_info.get("llm"), str) else None)
    name = name or path.stem
    policy = env.get("policy") if isinstance(env.get("policy"), str) else None
    domain = str(env.get("domain_name") or "tau2-bench")
    tasks: dict[str, str] = {}
    for index, task in enumerate(data.get("tasks") or []):
        if isinstance(task, dict) and "id" in task:
            tasks[_ident(task["id"], f"{path}: tasks[{index}].id")] = _tau2_task_text(task)
    for index, sim in enumerate(data["simulations"]):
        at = f"{path}: simulations[{index}]"
        if not isinstance(sim, dict):
            raise RolloutError(f"{at}: must be an object, got {json_type(sim)}")
        if "task_id" not in sim:
            raise RolloutError(f"{at}.task_id: missing")
        task_id = _ident(sim["task_id"], f"{at}.task_id")
        reward_info = sim.get("reward_info")
        if not isinstance(reward_info, dict) or reward_info.get("reward") is None:
            reason = sim.get("termination_reason") or "unknown"
            skips.add(at, f"no reward_info.reward (termination_reason {reason}); not audited")
            continue
        events, context = convert(sim.get("messages") or [], f"{at}.messages")
        success, reward = _reward(reward_info["reward"], f"{at}.reward_info.reward")
        trial = sim.get("trial")
        yield Rollout(
            task_id=task_id,
            agent=name,
            trial=0 if trial is None else integer(trial, f"{at}.trial", 0, MAX_TRIAL, RolloutError),
            task=tasks.get(task_id) or _first_user(events) or f"τ²-bench task {task_id}",
            task_type=domain,
            context=policy or context,
            events=events,
            success=success,
            reward=reward,
            satisfied=None,
            where=at,
        )


def _tau2_task_text(task: dict[str, Any]) -> str:
    scenario = task.get("user_scenario")
    instructions = scenario.get("instructions") if isinstance(scenario, dict) else None
    if isinstance(instructions, str) and instructions.strip():
        return instructions
    if isinstance(instructions, dict):
        lines = [f"{key}: {value}" for key, value in instructions.items() if value]
        if lines:
            return "\n".join(lines)
    description = task.get("description")
    if isinstance(description, dict):
        purpose = description.get("purpose")
        if isinstance(purpose, str) and purpose.strip():
            return purpose
    return ""


# --- OpenAI-format JSONL ------------------------------------------------------------------

TRAJECTORY_KEYS = (
    "type", "task_id", "agent", "trial", "messages", "success", "reward", "task", "task_type",
    "satisfied", "context", "meta",
)  # fmt: skip
VERDICT_KEYS = (
    "type", "task_id", "agent_a", "agent_b", "trial", "trial_a", "trial_b", "order", "winner",
    "score_a", "score_b", "raw_output", "reasons", "judge_model", "prompt_hash",
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
            raise RolloutError(f'{where}: type: {kind!r}; use "trajectory" or "verdict"')
        for key in row:
            if key not in TRAJECTORY_KEYS:
                raise RolloutError(
                    f"{where}: {key}: unknown field; known: {', '.join(TRAJECTORY_KEYS)}"
                )
        for key in ("task_id", "messages", "success"):
            if key not in row:
                raise RolloutError(
                    f"{where}: {key}: missing (see the openai-jsonl format in README)"
                )
        name = row.get("agent", agent or path.stem)
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
        yield Rollout(
            task_id=_ident(row["task_id"], f"{where}: task_id"),
            agent=_ident(name, f"{where}: agent"),
            trial=integer(row.get("trial", 0), f"{where}: trial", 0, MAX_TRIAL, RolloutError),
            task=task or _first_user(events) or f"task {row['task_id']}",
            task_type=task_type,
            context=given if given is not None else context,
            events=events,
            success=flag(row["success"], f"{where}: success", RolloutError),
            reward=None
            if reward is None
            else number(reward, f"{where}: reward", -1e12, 1e12, RolloutError),
            satisfied=None
            if satisfied is None
            else flag(satisfied, f"{where}: satisfied", RolloutError),
            where=where,
        )


def parse_verdict(row: dict[str, Any], where: str) -> Verdict:
    for key in row:
        if key not in VERDICT_KEYS:
            raise RolloutError(f"{where}: {key}: unknown field; known: {', '.join(VERDICT_KEYS)}")
    for key in ("task_id", "agent_a", "agent_b", "order", "winner"):
        if key not in row:
            raise RolloutError(f"{where}: {key}: missing (a verdict names its pair and winner)")
    trial = integer(row.get("trial", 0), f"{where}: trial", 0, MAX_TRIAL, RolloutError)
    body: dict[str, Any] = {
        k: row[k]
        for k in ("order", "winner", "score_a", "score_b", "raw_output", "reasons")
        if k in row
    }
    for key in ("judge_model", "prompt_hash"):
        if row.get(key) is not None and not isinstance(row[key], str):
            raise RolloutError(f"{where}: {key}: must be a string")
    return Verdict(
        task_id=_ident(row["task_id"], f"{where}: task_id"),
        trial_a=integer(row.get("trial_a", trial), f"{where}: trial_a", 0, MAX_TRIAL, RolloutError),
        trial_b=integer(row.get("trial_b", trial), f"{where}: trial_b", 0, MAX_TRIAL, RolloutError),
        agent_a=_ident(row["agent_a"], f"{where}: agent_a"),
        agent_b=_ident(row["agent_b"], f"{where}: agent_b"),
        body=body,
        judge_model=row.get("judge_model"),
        prompt_hash=row.get("prompt_hash"),
        where=where,
    )


def dumps(value: Any) -> str:
    """One JSONL line: non-ASCII kept as is, so text survives byte for byte."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

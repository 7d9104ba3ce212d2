"""Readers for τ-bench results and τ²-bench saved results (whole-file JSON documents).

Errors name the file and the JSON path of the field (``results.json: [3].info.task.instruction``).
A record the benchmark itself marks as broken (τ-bench's crashed task, τ²-bench's simulation
without a reward) is skipped with its reason; anything else missing or mistyped is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgeaudit.rollouts.formats import (
    MAX_TRIAL,
    Rollout,
    Skips,
    file_agent,
    first_user,
    ident,
    load_json,
    not_empty,
    obj,
    reward_success,
    text_field,
    untyped_agent,
)
from judgeaudit.rollouts.messages import RolloutError, convert
from judgeaudit.validate import integer, json_type

TAU_KEYS = ("task_id", "reward", "traj", "trial", "info")


def read_tau_bench(path: Path, agent: str, skips: Skips) -> Iterator[Rollout]:
    """τ-bench results: a list of {task_id, trial, reward, traj: [messages], info}."""
    data = load_json(path, "a τ-bench results file is one JSON list of {task_id, trial, reward}")
    if not isinstance(data, list):
        raise RolloutError(
            f"{path}: expected τ-bench results (a JSON list of {{task_id, trial, reward, traj, "
            f"info}}), got {json_type(data)}"
        )
    for index, item in enumerate(data):
        at = f"{path}: [{index}]"
        if not isinstance(item, dict):
            raise RolloutError(f"{at}: must be an object, got {json_type(item)}")
        for key in TAU_KEYS[:3]:
            if key not in item:
                raise RolloutError(
                    f"{at}.{key}: missing; τ-bench results carry {', '.join(TAU_KEYS)}"
                )
        info = item.get("info")
        if isinstance(info, dict) and "error" in info and "task" not in info:
            # τ-bench's run loop records a task that raised as reward 0, an empty traj and
            # info {error, traceback}: that is no conversation of the agent, so not a failure.
            skips.add(at, f"τ-bench recorded an error ({str(info['error'])[:80]}); not audited")
            continue
        for key in TAU_KEYS[3:]:
            if key not in item:
                raise RolloutError(
                    f"{at}.{key}: missing; τ-bench results carry {', '.join(TAU_KEYS)}"
                )
        if not isinstance(info, dict):
            raise RolloutError(f"{at}.info: must be an object, got {json_type(info)}")
        task_info = info.get("task")
        if not isinstance(task_info, dict):
            raise RolloutError(
                f"{at}.info.task: must be an object holding the task's instruction, got "
                f"{json_type(task_info)}"
            )
        if "instruction" not in task_info:
            raise RolloutError(f"{at}.info.task.instruction: missing; it is the user's goal")
        task = text_field(task_info["instruction"], f"{at}.info.task.instruction")
        domain = info.get("domain", "tau-bench")
        task_type = text_field(domain, f"{at}.info.domain")  # free-form
        events, context = convert(item["traj"], f"{at}.traj")
        not_empty(events, f"{at}.traj")
        success, reward = reward_success(item["reward"], f"{at}.reward")
        yield Rollout(
            task_id=ident(item["task_id"], f"{at}.task_id"),
            agent=agent,
            trial=integer(item["trial"], f"{at}.trial", 0, MAX_TRIAL, RolloutError),
            task=task,
            task_type=task_type,
            context=context,
            events=events,
            success=success,
            reward=reward,
            satisfied=None,
            where=at,
            task_at=f"{at}.info.task.instruction",
            type_at=f"{at}.info.domain",
            context_at=f"{at}.traj (system prompt)",
            reward_at=f"{at}.reward",
        )


def read_tau2_bench(path: Path, agent: str | None, skips: Skips) -> Iterator[Rollout]:
    """τ²-bench saved results: {info, tasks, simulations: [{task_id, trial, reward_info, messages}]}."""
    data = load_json(path, "τ²-bench results are one JSON object {info, tasks, simulations}")
    if not isinstance(data, dict) or not isinstance(data.get("simulations"), list):
        raise RolloutError(
            f"{path}: simulations: missing; expected τ²-bench results "
            "({info, tasks, simulations: [...]})"
        )
    info = obj(data.get("info"))
    env = obj(info.get("environment_info"))
    agent_info = obj(info.get("agent_info"))
    llm = agent_info.get("llm") if agent is None else None
    if isinstance(llm, str) and llm:
        where = f"{path}: info.agent_info.llm"
        name = untyped_agent(llm, where, "this field names the agent")
    else:
        name = agent or file_agent(path)
    policy = env.get("policy") if isinstance(env.get("policy"), str) else None
    domain = str(env.get("domain_name") or "tau2-bench")
    tasks: dict[str, tuple[str, str]] = {}  # id -> (text, where it came from)
    for index, task in enumerate(data.get("tasks") or []):
        if isinstance(task, dict) and "id" in task:
            at = f"{path}: tasks[{index}]"
            tasks[ident(task["id"], f"{at}.id")] = _tau2_task_text(task, at)
    for index, sim in enumerate(data["simulations"]):
        at = f"{path}: simulations[{index}]"
        if not isinstance(sim, dict):
            raise RolloutError(f"{at}: must be an object, got {json_type(sim)}")
        if "task_id" not in sim:
            raise RolloutError(f"{at}.task_id: missing")
        task_id = ident(sim["task_id"], f"{at}.task_id")
        reward_info = sim.get("reward_info")
        if not isinstance(reward_info, dict) or reward_info.get("reward") is None:
            reason = sim.get("termination_reason") or "unknown"
            skips.add(at, f"no reward_info.reward (termination_reason {reason}); not audited")
            continue
        if tasks and task_id not in tasks:
            raise RolloutError(
                f"{at}.task_id: {task_id!r} is not in tasks (ids: {', '.join(list(tasks)[:5])}"
                f"{', ...' if len(tasks) > 5 else ''}); is this simulation from another results file?"
            )
        if "messages" not in sim:
            raise RolloutError(f"{at}.messages: missing; a simulation carries its conversation")
        events, context = convert(sim["messages"], f"{at}.messages")
        not_empty(events, f"{at}.messages")
        success, reward = reward_success(reward_info["reward"], f"{at}.reward_info.reward")
        trial = sim.get("trial")
        text, text_at = tasks.get(task_id, ("", ""))
        yield Rollout(
            task_id=task_id,
            agent=name,
            trial=0 if trial is None else integer(trial, f"{at}.trial", 0, MAX_TRIAL, RolloutError),
            task=text or first_user(events) or f"τ²-bench task {task_id}",
            task_type=domain,
            context=policy or context,
            events=events,
            success=success,
            reward=reward,
            satisfied=None,
            where=at,
            task_at=text_at,
            type_at=f"{path}: info.environment_info.domain_name",
            context_at=f"{path}: info.environment_info.policy"
            if policy
            else f"{at}.messages (system)",
            trial_given=trial is not None,
            reward_at=f"{at}.reward_info.reward",
        )


def _tau2_task_text(task: dict[str, Any], at: str) -> tuple[str, str]:
    """The user's goal and where in the task it was found (empty if the task has none)."""
    scenario = task.get("user_scenario")
    instructions = scenario.get("instructions") if isinstance(scenario, dict) else None
    where = f"{at}.user_scenario.instructions"
    if isinstance(instructions, str) and instructions.strip():
        return instructions, where
    if isinstance(instructions, dict):
        lines = [f"{key}: {value}" for key, value in instructions.items() if value]
        if lines:
            return "\n".join(lines), where
    description = task.get("description")
    if isinstance(description, dict):
        purpose = description.get("purpose")
        if isinstance(purpose, str) and purpose.strip():
            return purpose, f"{at}.description.purpose"
    return "", ""

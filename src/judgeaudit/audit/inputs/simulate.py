"""One trajectory unit: the conversation, its state-checked success, the optional LLM label."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from judgeaudit.audit import events as ev
from judgeaudit.audit.spec import ModelRef, RunSpec
from judgeaudit.audit.spec.prompts import PromptSet
from judgeaudit.audit.spec.templates import trajectory_block
from judgeaudit.audit.tasks import Task
from judgeaudit.audit.tasks.success import state_check
from judgeaudit.audit.units import CheckUnit, TrajectoryUnit
from judgeaudit.audit.units.conversation import CallSink, Side, converse, render
from judgeaudit.audit.units.verdict_parse import parse_success

#: (scope, sink for ``calls`` rows, role -> model ref) -> a call sink for that unit.
RecorderFactory = Callable[[str, list[dict[str, Any]], dict[str, ModelRef]], CallSink]


@dataclass(frozen=True)
class Simulated:
    """A finished conversation, ready to store in one transaction."""

    row: dict[str, Any]
    calls: list[dict[str, Any]]
    event: ev.TrajectoryDone


async def simulate(
    unit: TrajectoryUnit,
    run_id: str,
    spec: RunSpec,
    prompts: PromptSet,
    side: Callable[[ModelRef], Side],
    recorder: RecorderFactory,
) -> Simulated:
    assert spec.user_simulator is not None
    task, agent, trial = unit.task, unit.agent, unit.trial
    traj_id = unit.traj_id(run_id)
    calls: list[dict[str, Any]] = []
    record = recorder(traj_id, calls, {"agent": agent, "user": spec.user_simulator})
    traj = await converse(
        task,
        agent.name,
        trial,
        side(agent),
        side(spec.user_simulator),
        prompts,
        max_turns=spec.max_turns,
        seed=spec.seed,
        on_call=record,
    )
    check = state_check(task, traj.final_state, traj.agent_text())
    llm_success = None
    if spec.success_check is not None:
        check_record = recorder(traj_id, calls, {"success_check": spec.success_check})
        llm_success = await llm_check(
            task, traj.events, spec, prompts, side(spec.success_check), check_record
        )
    row = {
        "traj_id": traj_id,
        "run_id": run_id,
        "task_id": task.task_id,
        "task_type": task.task_type,
        "agent": agent.name,
        "trial": trial,
        "events": json.dumps(traj.events, ensure_ascii=False),
        "ending": traj.ending,
        "satisfied": int(traj.satisfied),
        "success": int(check.success),
        "success_source": "state",
        "success_detail": json.dumps(check.detail),
        "llm_success": llm_success,
        "needs_review": int(llm_success is not None and llm_success != check.success),
    }
    event = ev.TrajectoryDone(
        traj_id, agent.name, task.task_id, check.success, traj.satisfied, traj.ending
    )
    return Simulated(row, calls, event)


async def recheck(
    unit: CheckUnit,
    run_id: str,
    events: list[dict[str, Any]],
    spec: RunSpec,
    prompts: PromptSet,
    side: Callable[[ModelRef], Side],
    recorder: RecorderFactory,
) -> tuple[int | None, list[dict[str, Any]]]:
    """The LLM success check on a stored (re-judged) trajectory: its label and its calls."""
    assert spec.success_check is not None
    calls: list[dict[str, Any]] = []
    record = recorder(unit.traj_id, calls, {"success_check": spec.success_check})
    label = await llm_check(unit.task, events, spec, prompts, side(spec.success_check), record)
    return label, calls


async def llm_check(
    task: Task,
    events: list[dict[str, Any]],
    spec: RunSpec,
    prompts: PromptSet,
    side: Side,
    record: CallSink,
) -> int | None:
    """The optional LLM success check: a candidate label only, never the truth."""
    messages = prompts.success_check.messages(
        task=task.goal(spec.language),
        trajectory=trajectory_block(render(events, spec.judge_view == "evidence")),
        language=spec.language,
    )
    result = await side.client.chat(
        side.model, messages, temperature=side.temperature, seed=spec.seed
    )
    record("success_check", side.model, result)
    return parse_success(result.text)

"""One trajectory: the user simulator talks to an agent that calls tools on the environment."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from judgeaudit.audit.spec.prompts import PromptSet
from judgeaudit.audit.tasks import Task
from judgeaudit.audit.tasks.domain import TOOL_SCHEMAS, Environment
from judgeaudit.audit.units.transcript import render
from judgeaudit.llm import CallResult, LLMClient

FINISHED, BLOCKED = "<finished>", "<blocked>"
MAX_TOOL_STEPS = 8

#: (role, model, result) for every model call, so the store can keep usage and latency.
CallSink = Callable[[str, str, CallResult], None]
__all__ = ["Side", "Trajectory", "converse", "render"]


@dataclass
class Trajectory:
    task_id: str
    agent: str
    trial: int
    events: list[dict[str, Any]] = field(default_factory=list)
    ending: str = "max_turns"  # finished | blocked | max_turns
    final_state: dict[str, Any] = field(default_factory=dict)

    @property
    def satisfied(self) -> bool:
        return self.ending == "finished"

    def agent_text(self) -> str:
        return "\n".join(e["content"] for e in self.events if e["role"] == "agent")


@dataclass(frozen=True)
class Side:
    """A model the conversation talks to: the client, the model id, sampling."""

    client: LLMClient
    model: str
    temperature: float | None


async def converse(
    task: Task,
    agent_name: str,
    trial: int,
    agent: Side,
    user: Side,
    prompts: PromptSet,
    *,
    max_turns: int,
    seed: int,
    on_call: CallSink,
) -> Trajectory:
    traj = Trajectory(task.task_id, agent_name, trial)
    env = Environment(task.initial_state, task.fail_once)
    call_seed = seed + trial
    agent_msgs: list[dict[str, Any]] = [{"role": "system", "content": prompts.agent_system}]
    user_msgs = prompts.user_simulator.messages(
        task=task.goal(prompts.language), language=prompts.language
    )
    for _ in range(max_turns):
        said = await user.client.chat(
            user.model, user_msgs, temperature=user.temperature, seed=call_seed
        )
        on_call("user", user.model, said)
        text = said.text.strip()
        traj.events.append({"role": "user", "content": text})
        if FINISHED in text or BLOCKED in text:
            traj.ending = "finished" if FINISHED in text else "blocked"
            break
        user_msgs.append({"role": "assistant", "content": text})
        agent_msgs.append({"role": "user", "content": text})
        reply = await _agent_turn(env, agent, agent_msgs, traj, call_seed, on_call)
        user_msgs.append({"role": "user", "content": reply})
    traj.final_state = env.state
    return traj


async def _agent_turn(
    env: Environment,
    agent: Side,
    msgs: list[dict[str, Any]],
    traj: Trajectory,
    seed: int,
    on_call: CallSink,
) -> str:
    said: list[str] = []  # every message the customer sees this turn, in order
    for _ in range(MAX_TOOL_STEPS):
        result = await agent.client.chat(
            agent.model, msgs, tools=TOOL_SCHEMAS, temperature=agent.temperature, seed=seed
        )
        on_call("agent", agent.model, result)
        if not result.tool_calls:
            traj.events.append({"role": "agent", "content": result.text})
            msgs.append({"role": "assistant", "content": result.text})
            return "\n\n".join([*said, result.text])
        if result.text.strip():
            # text sent beside tool calls ("let me look that up") is a message the customer
            # reads: the judge, the style features and the user simulator see it too
            traj.events.append({"role": "agent", "content": result.text})
            said.append(result.text)
        msgs.append(
            {
                "role": "assistant",
                "content": result.text or None,
                "tool_calls": [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["arguments"]},
                    }
                    for c in result.tool_calls
                ],
            }
        )
        for call in result.tool_calls:
            outcome = env.call(call["name"], call["arguments"])
            traj.events.append(
                {"role": "tool_call", "name": call["name"], "arguments": call["arguments"]}
            )
            traj.events.append({"role": "tool_result", "name": call["name"], "result": outcome})
            msgs.append(
                {
                    "role": "tool",
                    "tool_call_id": call["id"],
                    "content": json.dumps(outcome, ensure_ascii=False),
                }
            )
    note = "(agent stopped: too many tool calls in one turn)"
    traj.events.append({"role": "agent", "content": note})
    return "\n\n".join([*said, note])

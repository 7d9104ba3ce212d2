"""Stored trajectory events as OpenAI chat messages, and the two training shapes built on them.

The inverse of :mod:`judgeaudit.rollouts.messages`: ``user`` → user, ``agent`` → assistant,
``tool_call`` → an assistant message's ``tool_calls`` (an agent's text directly followed by its
calls is one message, as OpenAI sends it), ``tool_result`` → a ``tool`` message. Text, tool
arguments and results are kept verbatim (a string stays the same string; any other JSON value
is written compact with non-ASCII as is, exactly as the agent was shown it), so a Chinese
transcript comes back byte for byte. The store keeps no tool-call ids: they are numbered
``call_0``, ``call_1``… per trajectory, each result answering the oldest open call of its tool.
"""

from __future__ import annotations

from typing import Any, Literal

from judgeaudit.audit.units.transcript import value_text

Message = dict[str, Any]
#: Why a pair could not be written in a format (counted per reason in the data card).
Skip = Literal[
    "no_transcript",
    "no_user_message",
    "prompt_differs",
    "empty_completion",
    "diverge_before_last_assistant_turn",
    "identical_outputs",
]


def to_messages(events: list[dict[str, Any]], system: str | None) -> list[Message]:
    """One trajectory as chat messages, the system prompt (if any) first."""
    out: list[Message] = [{"role": "system", "content": system}] if system else []
    open_calls: list[tuple[str, str]] = []  # (id, tool name) awaiting a result
    count = 0
    for event in events:
        role = event.get("role")
        if role == "user":
            out.append({"role": "user", "content": str(event.get("content") or "")})
        elif role == "agent":
            out.append({"role": "assistant", "content": str(event.get("content") or "")})
        elif role == "tool_call":
            call_id, count = f"call_{count}", count + 1
            name = str(event.get("name") or "")
            call = {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": value_text(event.get("arguments", ""))},
            }
            last = out[-1] if out else None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
            open_calls.append((call_id, name))
        elif role == "tool_result":
            name = str(event.get("name") or "")
            match = next((i for i, (_, n) in enumerate(open_calls) if n == name), None)
            if match is None and open_calls:
                match = 0
            if match is None:  # a result with no call before it: still kept, with its own id
                call_id, count = f"call_{count}", count + 1
            else:
                call_id = open_calls.pop(match)[0]
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "content": value_text(event.get("result")),
                }
            )
    return out


def without_trailing_user(messages: list[Message]) -> tuple[list[Message], int]:
    """Drop the user turns after the agent's last message (the simulator's closing "thanks
    <finished>" is not something the policy generates); returns (messages, how many dropped)."""
    end = len(messages)
    while end and messages[end - 1]["role"] == "user":
        end -= 1
    return messages[:end], len(messages) - end


def prompt_length(messages: list[Message]) -> int | None:
    """How many messages make the prompt: up to and including the first user message."""
    for index, message in enumerate(messages):
        if message["role"] == "user":
            return index + 1
    return None


def trl_shape(
    chosen: list[Message], rejected: list[Message]
) -> tuple[dict[str, list[Message]] | None, Skip | None, int]:
    """TRL's conversational preference type: ``prompt`` (system and first user message, the
    same on both sides), ``chosen`` and ``rejected`` (the rest of each side). Returns (row or
    None, why not, trailing user turns dropped)."""
    n_c, n_r = prompt_length(chosen), prompt_length(rejected)
    if n_c is None or n_r is None:
        return None, "no_user_message", 0
    if chosen[:n_c] != rejected[:n_r]:
        return None, "prompt_differs", 0
    rest_c, dropped_c = without_trailing_user(chosen[n_c:])
    rest_r, dropped_r = without_trailing_user(rejected[n_r:])
    if not rest_c or not rest_r:
        return None, "empty_completion", 0
    return (
        {"prompt": chosen[:n_c], "chosen": rest_c, "rejected": rest_r},
        None,
        dropped_c + dropped_r,
    )


def openai_shape(
    chosen: list[Message], rejected: list[Message], tools: list[dict[str, Any]] | None
) -> tuple[dict[str, Any] | None, Skip | None]:
    """OpenAI preference fine-tuning: ``input.messages`` shared, then exactly one assistant
    message each. Only pairs whose two sides are the same up to their last assistant message
    fit; any other pair is refused with its reason, never cut to fit."""
    c, _ = without_trailing_user(chosen)
    r, _ = without_trailing_user(rejected)
    common = 0
    for x, y in zip(c, r, strict=False):
        if x != y:
            break
        common += 1
    if common == len(c) and common == len(r):
        return None, "identical_outputs"
    if len(c) - common != 1 or len(r) - common != 1 or common == 0:
        return None, "diverge_before_last_assistant_turn"
    if c[-1]["role"] != "assistant" or r[-1]["role"] != "assistant":
        return None, "diverge_before_last_assistant_turn"
    shared: dict[str, Any] = {"messages": c[:common]}
    if tools:
        shared["tools"] = tools
    return {"input": shared, "preferred_output": [c[-1]], "non_preferred_output": [r[-1]]}, None

"""OpenAI chat messages (as τ-bench, τ²-bench and most agent logs store them) → audit events.

The system prompt (a policy, a wiki) is not part of what the user saw: it is returned apart, as
the task context. Tool arguments and results are kept verbatim (a string stays the same string,
a number the same number), so what the judge and the screens show is what the agent saw.
"""

from __future__ import annotations

from typing import Any

from judgeaudit.errors import InputError
from judgeaudit.validate import json_type


class RolloutError(InputError):
    """A rollout file that cannot be imported; the message names the file, line or JSON path."""


def convert(messages: Any, where: str) -> tuple[list[dict[str, Any]], str | None]:
    """(events, context) from a list of chat messages; ``where`` prefixes every error."""
    if not isinstance(messages, list):
        raise RolloutError(f"{where}: must be a list of chat messages, got {json_type(messages)}")
    events: list[dict[str, Any]] = []
    system: list[str] = []
    names: dict[str, str] = {}  # tool_call_id -> tool name, for results that omit the name
    for index, message in enumerate(messages):
        at = f"{where}[{index}]"
        if not isinstance(message, dict):
            raise RolloutError(f"{at}: must be an object, got {json_type(message)}")
        role = message.get("role")
        if role in ("system", "developer"):
            system.append(_text(message.get("content"), f"{at}.content"))
        elif role == "user":
            events.append(
                {"role": "user", "content": _text(message.get("content"), f"{at}.content")}
            )
            events.extend(_calls(message.get("tool_calls"), f"{at}.tool_calls", names))
        elif role == "assistant":
            text = _text(message.get("content"), f"{at}.content")
            if text:
                events.append({"role": "agent", "content": text})
            events.extend(_calls(message.get("tool_calls"), f"{at}.tool_calls", names))
        elif role in ("tool", "function"):
            if "content" not in message:
                raise RolloutError(f"{at}.content: missing; a tool message carries the result")
            call_id = message.get("tool_call_id") or message.get("id")
            name = message.get("name") or names.get(str(call_id), "")
            event: dict[str, Any] = {"role": "tool_result", "name": name}
            event["result"] = message["content"]  # any JSON value, verbatim
            if message.get("error") is True:
                event["error"] = True
            events.append(event)
        else:
            raise RolloutError(
                f"{at}.role: {role!r} is not a chat role; use system, user, assistant or tool"
            )
    context = "\n\n".join(part for part in system if part.strip()) or None
    return events, context


def _text(content: Any, where: str) -> str:
    """Message content: a string, null, or OpenAI's content parts (``[{"type": "text", "text":
    ...}]``, joined). A bare string in the list is not that shape (``["a", "b"]`` was joined to
    ``ab`` without a word): refused, like a part that holds no text (an image)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for index, part in enumerate(content):
            if isinstance(part, str):
                raise RolloutError(
                    f"{where}[{index}]: a string where OpenAI's content part is an object "
                    '{"type": "text", "text": ...}; give the content as one string, or each part '
                    "as such an object"
                )
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                raise RolloutError(f"{where}[{index}]: a content part needs a text string")
        return "".join(parts)
    raise RolloutError(f"{where}: must be a string, a list of text parts or null")


def _calls(raw: Any, where: str, names: dict[str, str]) -> list[dict[str, Any]]:
    """Tool calls in the OpenAI shape ({function: {name, arguments}}) or the flat τ² shape."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise RolloutError(f"{where}: must be a list, got {json_type(raw)}")
    out = []
    for index, call in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(call, dict):
            raise RolloutError(f"{at}: must be an object, got {json_type(call)}")
        function = call.get("function")
        body: dict[str, Any] = function if isinstance(function, dict) else call
        name = body.get("name")
        if not isinstance(name, str) or not name:
            raise RolloutError(f"{at}.function.name: missing; every tool call names its tool")
        arguments = body.get("arguments", "")
        if not isinstance(arguments, str | dict):
            raise RolloutError(
                f"{at}.function.arguments: must be a JSON string or an object, "
                f"got {json_type(arguments)}"
            )
        if call.get("id") is not None:
            names[str(call["id"])] = name
        out.append({"role": "tool_call", "name": name, "arguments": arguments})
    return out

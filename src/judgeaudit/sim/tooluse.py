"""The generic chat model's one tool trick, for driving real clients through a tool round trip.

A line ``sim-tool: NAME {"json": "arguments"}`` in a user message makes the ``chat`` model call
tool NAME with those arguments (when the request offers that tool). Once a tool result follows
that message, it answers with text quoting the result (its lines joined, at most 400
characters), so the conversation ends.
"""

from __future__ import annotations

import json
import re

from judgeaudit.sim.types import SimReply, SimRequest, ToolCall, digest

DIRECTIVE = re.compile(r"sim-tool:\s*([A-Za-z0-9_.-]+)[ \t]*(\{.*\})?")


def tool_step(request: SimRequest) -> SimReply | None:
    """The tool call or the report on its result; None when no directive applies."""
    asked = None
    for position, message in enumerate(request.messages):
        if message.role == "user" and (found := DIRECTIVE.search(message.content)):
            asked = position, found
    if asked is None:
        return None
    position, found = asked
    name, raw_args = found.group(1), found.group(2) or "{}"
    results = [m for m in request.messages[position + 1 :] if m.role == "tool"]
    if results:
        lines = [ln.strip() for ln in results[-1].content.splitlines() if ln.strip()]
        return SimReply(text=f"Tool {name} returned: {' | '.join(lines)[:400]}")
    if name not in request.tools:
        return SimReply(text=f"Tool {name} is not offered in this request.")
    try:
        arguments = json.dumps(json.loads(raw_args), ensure_ascii=False)
    except json.JSONDecodeError:
        return SimReply(text=f"Tool {name}: the arguments are not JSON.")
    call_id = "call_" + digest(request.model, name, arguments, position)[:20]
    return SimReply(tool_calls=[ToolCall(call_id, name, arguments)])

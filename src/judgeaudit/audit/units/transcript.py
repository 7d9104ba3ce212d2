"""Trajectory events as text, once for every reader: the judge prompt, the screens, the report.

Imported tool results may be any JSON value (τ-bench's ``calculate`` returns a number), so no
reader may assume an object. A string result is shown verbatim (it is usually the tool's own
text); anything else as compact JSON with non-ASCII kept as is.
"""

from __future__ import annotations

import json
from typing import Any

#: (kind, text) per event; kind is user | agent | tool_call | tool_result | tool_error.
Line = tuple[str, str]


def value_text(value: Any) -> str:
    """A tool's arguments or result as text: strings verbatim, other JSON compact, unescaped."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def is_tool_error(result: Any) -> bool:
    return isinstance(result, dict) and "error" in result


def lines(events: list[dict[str, Any]], with_tools: bool = True) -> list[Line]:
    """One (kind, text) per event shown; tool events only ``with_tools``."""
    out: list[Line] = []
    for event in events:
        role = event.get("role")
        if role in ("user", "agent"):
            out.append((str(role), str(event.get("content") or "")))
        elif with_tools and role == "tool_call":
            name = event.get("name", "")
            out.append(("tool_call", f"{name} {value_text(event.get('arguments', ''))}".strip()))
        elif with_tools and role == "tool_result":
            result = event.get("result")
            kind = "tool_error" if is_tool_error(result) else "tool_result"
            out.append((kind, value_text(result)))
    return out


CONTEXT_HEADING = {
    "en": "Policy and system prompt the agent was given:",
    "zh": "客服所遵循的政策与系统提示：",
}


def with_context(goal: str, context: str | None, language: str) -> str:
    """The task as the judge sees it, with an imported trajectory's policy when it is shown."""
    if not context:
        return goal
    return f"{goal}\n\n{CONTEXT_HEADING.get(language, CONTEXT_HEADING['en'])}\n{context}"


#: Indent of a message's second and later lines: a line at column 0 always starts a turn, so a
#: message cannot fake another role by containing a newline and ``user:``.
CONTINUATION = "  "


def render(events: list[dict[str, Any]], with_tools: bool) -> str:
    """A transcript as the judge sees it: ``role: text`` per event, each message's white space
    kept as written (line breaks, indentation, blank lines; later lines indented by
    CONTINUATION), so a list or a code block reaches the judge as the user saw it."""
    text = []
    for kind, body in lines(events, with_tools):
        first, *rest = body.split("\n")
        text.append(f"{'tool_result' if kind == 'tool_error' else kind}: {first}")
        text += [f"{CONTINUATION}{line}" for line in rest]
    return "\n".join(text)

"""The chat message list the bridge sends upstream, in the shape strict chat templates accept.

Many local chat templates (llama.cpp, vLLM, Ollama jinja templates) refuse a system message that
is not first and two user messages in a row. Both front ends therefore turn an instruction that
arrives mid-conversation (Claude Code's ``system`` items, Codex's later ``developer`` messages)
into a ``<system-reminder>`` text in a user message at that place, and merge neighbouring user
messages into one.
"""

from __future__ import annotations

from typing import Any


def reminder(text: str) -> str:
    """A mid-conversation instruction as user text (the wrapping Claude Code itself uses)."""
    return f"<system-reminder>\n{text}\n</system-reminder>"


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, list):
        return list(content)
    return [{"type": "text", "text": str(content)}] if content else []


def merge_adjacent_users(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One user message where there were several in a row (texts joined by a blank line;
    with images, their parts in order)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        last = out[-1] if out else None
        if last is None or message["role"] != "user" or last["role"] != "user":
            out.append(message)
            continue
        before, after = last.get("content"), message.get("content")
        if isinstance(before, str | None) and isinstance(after, str | None):
            last["content"] = "\n\n".join(t for t in (before, after) if t)
        else:
            last["content"] = _parts(before) + _parts(after)
    return out

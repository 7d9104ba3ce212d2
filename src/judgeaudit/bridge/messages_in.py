"""Anthropic Messages request (what Claude Code sends) → one Chat Completions request.

What maps: ``system`` (a string or text blocks), text and image blocks, ``tool_use`` (assistant
``tool_calls``), ``tool_result`` (``tool`` messages placed right after the calls, as chat requires;
images a tool returned follow in a user message; ``is_error`` results are marked), plain-text
documents, custom tools, ``tool_choice`` (``auto``/``any``/``tool``/``none``,
``disable_parallel_tool_use``), ``max_tokens``, ``stop_sequences``, ``temperature``, ``top_p``,
``stream``.

A ``system`` item inside ``messages`` (current Claude Code sends its environment that way, beta
``mid-conversation-system``) becomes a ``<system-reminder>`` text in a user message at the same
place, merged into the neighbouring user message: many local chat templates reject a system
message that is not first, or two user messages in a row, and folding it into the leading system
message would move it out of its turn and change the prompt prefix a gateway caches.

Dropped, on purpose: ``thinking`` / ``redacted_thinking`` blocks (signed for the provider that
made them), server tools (``web_search_…``, ``bash_…``, ``text_editor_…``: a chat upstream
cannot run them), ``cache_control``, ``metadata`` (Claude Code puts a device id there; it stays
on this machine), ``thinking`` / ``context_management`` settings and ``top_k``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from judgeaudit.bridge.chatshape import merge_adjacent_users, reminder
from judgeaudit.bridge.errors import BridgeError

ERROR_MARK = "[tool error] "


@dataclass
class MessagesContext:
    model: str


def _bad(message: str) -> BridgeError:
    return BridgeError(400, message, "invalid_request_error")


def _blocks(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    raise _bad(f"{where}: content must be a string or a list of blocks")


def _image(block: dict[str, Any]) -> dict[str, Any] | None:
    source = block.get("source") or {}
    if source.get("type") == "base64" and source.get("data"):
        url = f"data:{source.get('media_type', 'image/png')};base64,{source['data']}"
    elif source.get("type") == "url" and source.get("url"):
        url = str(source["url"])
    else:
        return None
    return {"type": "image_url", "image_url": {"url": url}}


def _document_text(block: dict[str, Any]) -> str | None:
    source = block.get("source") or {}
    if source.get("type") == "text" and isinstance(source.get("data"), str):
        title = block.get("title")
        return f"{title}\n\n{source['data']}" if title else str(source["data"])
    return None


def _result(block: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """A tool_result's text and the images it carried (a ``tool_reference`` block, a tool search
    result, becomes a line naming the tool, not nothing)."""
    texts: list[str] = []
    images: list[dict[str, Any]] = []
    for inner in _blocks(block.get("content", ""), "tool_result"):
        if inner.get("type") == "text":
            texts.append(str(inner.get("text") or ""))
        elif inner.get("type") == "image" and (image := _image(inner)) is not None:
            images.append(image)
            texts.append("(image attached in the next message)")
        elif inner.get("type") == "tool_reference" and isinstance(inner.get("tool_name"), str):
            # a tool search's answer: the tool it found. A chat upstream gets every tool in
            # ``tools`` (it cannot defer one), so the text says which one was found.
            texts.append(f"tool found: {inner['tool_name']} (it can be called now)")
    text = "\n".join(texts)
    if block.get("is_error"):
        text = ERROR_MARK + text
    return text, images


def _content(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    if any(p["type"] != "text" for p in parts):
        return parts
    return "\n".join(p["text"] for p in parts)


def _user(blocks: list[dict[str, Any]], out: list[dict[str, Any]]) -> None:
    parts: list[dict[str, Any]] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "tool_result":
            text, images = _result(block)
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": str(block.get("tool_use_id") or ""),
                    "content": text,
                }
            )
            parts += images
        elif kind == "text":
            parts.append({"type": "text", "text": str(block.get("text") or "")})
        elif kind == "image" and (image := _image(block)) is not None:
            parts.append(image)
        elif kind == "document" and (doc := _document_text(block)) is not None:
            parts.append({"type": "text", "text": doc})
    if parts:
        out.append({"role": "user", "content": _content(parts)})


def _assistant(blocks: list[dict[str, Any]], out: list[dict[str, Any]]) -> None:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind == "tool_use":
            arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
            calls.append(
                {
                    "id": str(block.get("id") or ""),
                    "type": "function",
                    "function": {"name": str(block.get("name") or ""), "arguments": arguments},
                }
            )
    if not texts and not calls:
        return  # only thinking blocks: nothing a chat upstream can take
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        message["tool_calls"] = calls
    out.append(message)


def _reminder(blocks: list[dict[str, Any]]) -> str:
    text = "\n".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
    return reminder(text) if text.strip() else ""


def _add_text(message: dict[str, Any], text: str) -> None:
    """Append a text to a chat user message (string or parts)."""
    content = message.get("content")
    if isinstance(content, list):
        content.append({"type": "text", "text": text})
    else:
        message["content"] = f"{content}\n\n{text}" if content else text


def _system_item(
    blocks: list[dict[str, Any]], out: list[dict[str, Any]], pending: list[str]
) -> None:
    """A mid-conversation system item: onto the user message just before it, else held for
    the next user message (after any tool results, which must follow their calls)."""
    text = _reminder(blocks)
    if not text:
        return
    if out and out[-1]["role"] == "user" and not pending:
        _add_text(out[-1], text)
    else:
        pending.append(text)


def _flush(out: list[dict[str, Any]], pending: list[str], start: int) -> None:
    """Put held reminders in front of the first user message emitted from ``start`` on, or in
    a user message of their own at the end."""
    if not pending:
        return
    text = "\n\n".join(pending)
    pending.clear()
    for message in out[start:]:
        if message["role"] == "user":
            content = message.get("content")
            if isinstance(content, list):
                content.insert(0, {"type": "text", "text": text})
            else:
                message["content"] = f"{text}\n\n{content}" if content else text
            return
    out.append({"role": "user", "content": text})


def _tools(raw: Any) -> list[dict[str, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise _bad("tools: must be a list")
    out = []
    for tool in raw:
        if not isinstance(tool, dict) or tool.get("type") not in (None, "custom"):
            continue  # server tools (web_search_…, bash_…): the upstream cannot run them
        if not isinstance(tool.get("name"), str):
            continue
        schema = tool.get("input_schema") or {"type": "object", "properties": {}}
        if isinstance(schema, dict):
            schema = {k: v for k, v in schema.items() if k != "$schema"}
        function: dict[str, Any] = {"name": tool["name"], "parameters": schema}
        if tool.get("description"):
            function["description"] = str(tool["description"])
        out.append({"type": "function", "function": function})
    return out


def _tool_choice(raw: Any) -> tuple[Any, bool | None]:
    if not isinstance(raw, dict):
        return None, None
    kind = raw.get("type")
    parallel = False if raw.get("disable_parallel_tool_use") else None
    if kind == "auto":
        return "auto", parallel
    if kind == "any":
        return "required", parallel
    if kind == "none":
        return "none", None
    if kind == "tool" and raw.get("name"):
        return {"type": "function", "function": {"name": str(raw["name"])}}, parallel
    return None, parallel


def _system(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        return "\n".join(
            str(b.get("text") or "") for b in raw if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def to_chat(
    body: dict[str, Any], default_model: str | None = None
) -> tuple[dict[str, Any], MessagesContext]:
    model = body.get("model") or default_model
    if not isinstance(model, str) or not model:
        raise _bad("model: Field required")
    raw_messages = body.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        raise _bad("messages: Field required (a non-empty list)")
    messages: list[dict[str, Any]] = []
    if system := _system(body.get("system")):
        messages.append({"role": "system", "content": system})
    if all(isinstance(r, dict) and r.get("role") == "system" for r in raw_messages):
        raise _bad("messages: at least one user or assistant message is required")
    pending: list[str] = []  # system items waiting for the next user message
    for position, raw in enumerate(raw_messages):
        if not isinstance(raw, dict) or raw.get("role") not in ("user", "assistant", "system"):
            raise _bad(f"messages.{position}.role: must be 'user', 'assistant' or 'system'")
        blocks = _blocks(raw.get("content", ""), f"messages.{position}")
        if raw["role"] == "system":
            _system_item(blocks, messages, pending)
        elif raw["role"] == "user":
            start = len(messages)
            _user(blocks, messages)
            _flush(messages, pending, start)
        else:
            _flush(messages, pending, len(messages))
            _assistant(blocks, messages)
    if not any(m["role"] != "system" for m in messages) and not any(
        isinstance(r, dict) and r.get("role") != "system" for r in raw_messages
    ):
        raise _bad("messages: at least one user or assistant message is required")
    _flush(messages, pending, len(messages))
    chat: dict[str, Any] = {"model": model, "messages": merge_adjacent_users(messages)}
    if isinstance(body.get("max_tokens"), int):
        chat["max_tokens"] = body["max_tokens"]
    tools = _tools(body.get("tools"))
    if tools:
        chat["tools"] = tools
        choice, parallel = _tool_choice(body.get("tool_choice"))
        if choice is not None:
            chat["tool_choice"] = choice
        if parallel is not None:
            chat["parallel_tool_calls"] = parallel
    stops = body.get("stop_sequences")
    if isinstance(stops, list) and stops:
        chat["stop"] = [str(s) for s in stops][:4]  # OpenAI's limit
    for key in ("temperature", "top_p"):
        if isinstance(body.get(key), int | float) and not isinstance(body.get(key), bool):
            chat[key] = body[key]
    if body.get("stream"):
        chat["stream"] = True
        chat["stream_options"] = {"include_usage": True}
    return chat, MessagesContext(model=model)


def estimate_tokens(body: dict[str, Any]) -> int:
    """``count_tokens``: an estimate (about four characters a token), since chat upstreams have
    no counting endpoint; Claude Code only uses it to decide when to compact."""
    text = json.dumps(
        [body.get("system"), body.get("messages"), body.get("tools")], ensure_ascii=False
    )
    return max(1, len(text) // 4)

"""Anthropic Messages: ``POST /v1/messages`` (enough for ``claude -p``)."""

from __future__ import annotations

import json
from typing import Any

from judgeaudit.sim.types import Message, SimReply, SimRequest, ToolCall
from judgeaudit.sim.wire import Usage, WireError, canonical, chunks, ident, sse


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    raise WireError("content must be a string or a list of blocks")


def _block_text(content: Any) -> str:
    return "".join(_str(b.get("text")) for b in _blocks(content) if b.get("type") == "text")


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def parse(body: dict[str, Any]) -> SimRequest:
    if not isinstance(body.get("model"), str):
        raise WireError("model: Field required")
    if not isinstance(body.get("messages"), list):
        raise WireError("messages: Field required")
    messages: list[Message] = []
    if body.get("system"):
        messages.append(Message("system", _block_text(body["system"])))
    for index, raw in enumerate(body["messages"]):
        if not isinstance(raw, dict) or not isinstance(raw.get("role", "user"), str):
            raise WireError(f"messages.{index}: an object with a string 'role' is required")
        role = raw.get("role", "user")
        text_parts: list[str] = []
        calls: list[ToolCall] = []
        for block in _blocks(raw.get("content", "")):
            kind = block.get("type")
            if kind == "text":
                text_parts.append(_str(block.get("text")))
            elif kind == "tool_use":
                args = json.dumps(block.get("input", {}), ensure_ascii=False)
                calls.append(ToolCall(_str(block.get("id")), _str(block.get("name")), args))
            elif kind == "tool_result":
                inner = block.get("content", "")
                text = inner if isinstance(inner, str) else _block_text(inner)
                tool_id = _str(block.get("tool_use_id")) or None
                messages.append(Message("tool", text, tool_call_id=tool_id))
        if text_parts or calls:
            messages.append(Message(role, "".join(text_parts), calls))
    raw_tools = body.get("tools") or []
    if not isinstance(raw_tools, list) or not all(isinstance(t, dict) for t in raw_tools):
        raise WireError("tools: Input should be a list of objects")
    tools = [_str(t.get("name")) for t in raw_tools]
    return SimRequest(
        model=body["model"],
        messages=messages,
        tools=tools,
        tool_choice=body.get("tool_choice"),
        temperature=body.get("temperature"),
        canonical=canonical(body),
    )


def _content(reply: SimReply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        blocks.append(
            {
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": json.loads(call.arguments or "{}"),
            }
        )
    return blocks


def _message(
    request: SimRequest,
    content: list[dict[str, Any]],
    stop: str | None,
    usage: Usage,
    output_tokens: int,
) -> dict[str, Any]:
    return {
        "id": ident("msg_", request),
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage.prompt,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _stop(reply: SimReply) -> str:
    return "tool_use" if reply.tool_calls else "end_turn"


def render(request: SimRequest, reply: SimReply, usage: Usage) -> dict[str, Any]:
    return _message(request, _content(reply), _stop(reply), usage, usage.completion)


def empty(request: SimRequest, usage: Usage) -> dict[str, Any]:
    return _message(request, [], "end_turn", usage, 0)


def stream(request: SimRequest, reply: SimReply, usage: Usage) -> list[bytes]:
    out = [
        sse(
            {"type": "message_start", "message": _message(request, [], None, usage, 1)},
            event="message_start",
        )
    ]
    for index, block in enumerate(_content(reply)):
        if block["type"] == "text":
            start: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in chunks(block["text"])]
        else:
            start = {**block, "input": {}}
            raw = json.dumps(block["input"], ensure_ascii=False)
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in chunks(raw)]
        out.append(
            sse(
                {"type": "content_block_start", "index": index, "content_block": start},
                event="content_block_start",
            )
        )
        for delta in deltas:
            out.append(
                sse(
                    {"type": "content_block_delta", "index": index, "delta": delta},
                    event="content_block_delta",
                )
            )
        out.append(sse({"type": "content_block_stop", "index": index}, event="content_block_stop"))
    out.append(
        sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": _stop(reply), "stop_sequence": None},
                "usage": {"output_tokens": usage.completion},
            },
            event="message_delta",
        )
    )
    out.append(sse({"type": "message_stop"}, event="message_stop"))
    return out


def error(status: int, message: str, kind: str) -> dict[str, Any]:
    kinds = {
        401: "authentication_error",
        429: "rate_limit_error",
        400: "invalid_request_error",
        500: "api_error",
        503: "overloaded_error",
    }
    return {"type": "error", "error": {"type": kinds.get(status, kind), "message": message}}

"""OpenAI Responses API: ``POST /v1/responses`` (enough for ``codex exec``)."""

from __future__ import annotations

import json
from typing import Any

from judgeaudit.sim.types import Message, SimReply, SimRequest, ToolCall
from judgeaudit.sim.wire import CREATED, Usage, WireError, canonical, chunks, ident, sse


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_str(p.get("text")) for p in content if isinstance(p, dict))
    return ""


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def parse(body: dict[str, Any]) -> SimRequest:
    if not isinstance(body.get("model"), str):
        raise WireError("'model' is required")
    messages: list[Message] = []
    if body.get("instructions"):
        messages.append(Message("system", str(body["instructions"])))
    raw_input = body.get("input", [])
    items = (
        [{"type": "message", "role": "user", "content": raw_input}]
        if isinstance(raw_input, str)
        else raw_input
    )
    if not isinstance(items, list):
        raise WireError("'input' must be a string or a list of items")
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise WireError(f"input[{index}] must be an object")
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role", "user")
            if not isinstance(role, str):
                raise WireError(f"input[{index}].role must be a string")
            messages.append(
                Message({"developer": "system"}.get(role, role), _text(item.get("content")))
            )
        elif kind == "function_call":
            call = ToolCall(
                _str(item.get("call_id")), _str(item.get("name")), _str(item.get("arguments"))
            )
            messages.append(Message("assistant", "", [call]))
        elif kind == "function_call_output":
            output = item.get("output", "")
            text = output if isinstance(output, str) else json.dumps(output)
            messages.append(Message("tool", text, tool_call_id=_str(item.get("call_id")) or None))
    raw_tools = body.get("tools") or []
    if not isinstance(raw_tools, list) or not all(isinstance(t, dict) for t in raw_tools):
        raise WireError("'tools' must be a list of objects")
    tools = [_str(t.get("name")) for t in raw_tools if t.get("type") == "function"]
    return SimRequest(
        model=body["model"],
        messages=messages,
        tools=tools,
        tool_choice=body.get("tool_choice"),
        temperature=body.get("temperature"),
        canonical=canonical(body),
    )


def _items(request: SimRequest, reply: SimReply) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.text:
        items.append(
            {
                "type": "message",
                "id": ident("msg_", request),
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    for call in reply.tool_calls:
        items.append(
            {
                "type": "function_call",
                "id": "fc_" + call.id,
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments,
                "status": "completed",
            }
        )
    return items


def _response(
    request: SimRequest, status: str, output: list[dict[str, Any]], usage: Usage | None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": ident("resp_", request),
        "object": "response",
        "created_at": CREATED,
        "status": status,
        "model": request.model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": None,
    }
    if usage is not None:
        body["usage"] = {
            "input_tokens": usage.prompt,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": usage.completion,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage.prompt + usage.completion,
        }
    return body


def render(request: SimRequest, reply: SimReply, usage: Usage) -> dict[str, Any]:
    return _response(request, "completed", _items(request, reply), usage)


def empty(request: SimRequest, usage: Usage) -> dict[str, Any]:
    return _response(request, "completed", [], usage)


def stream(request: SimRequest, reply: SimReply, usage: Usage) -> list[bytes]:
    seq = 0
    out: list[bytes] = []

    def emit(kind: str, **data: Any) -> None:
        nonlocal seq
        out.append(sse({"type": kind, "sequence_number": seq, **data}, event=kind))
        seq += 1

    emit("response.created", response=_response(request, "in_progress", [], None))
    emit("response.in_progress", response=_response(request, "in_progress", [], None))
    items = _items(request, reply)
    for index, item in enumerate(items):
        if item["type"] == "message":
            emit("response.output_item.added", output_index=index, item={**item, "content": []})
            part = {"type": "output_text", "text": "", "annotations": []}
            emit(
                "response.content_part.added",
                item_id=item["id"],
                output_index=index,
                content_index=0,
                part=part,
            )
            for piece in chunks(reply.text):
                emit(
                    "response.output_text.delta",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    delta=piece,
                )
            emit(
                "response.output_text.done",
                item_id=item["id"],
                output_index=index,
                content_index=0,
                text=reply.text,
            )
            emit(
                "response.content_part.done",
                item_id=item["id"],
                output_index=index,
                content_index=0,
                part={**part, "text": reply.text},
            )
        else:
            emit("response.output_item.added", output_index=index, item={**item, "arguments": ""})
            emit(
                "response.function_call_arguments.delta",
                item_id=item["id"],
                output_index=index,
                delta=item["arguments"],
            )
            emit(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=index,
                arguments=item["arguments"],
            )
        emit("response.output_item.done", output_index=index, item=item)
    emit("response.completed", response=_response(request, "completed", items, usage))
    return out


def error(status: int, message: str, kind: str) -> dict[str, Any]:
    codes = {401: "invalid_api_key", 429: "rate_limit_exceeded"}
    return {"error": {"message": message, "type": kind, "param": None, "code": codes.get(status)}}

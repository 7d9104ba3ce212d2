"""OpenAI Chat Completions: ``POST /v1/chat/completions``."""

from __future__ import annotations

from typing import Any

from judgeaudit.sim.types import Message, SimReply, SimRequest, ToolCall
from judgeaudit.sim.wire import CREATED, Usage, WireError, canonical, chunks, ident, sse


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    raise WireError("message content must be a string or a list of parts")


def parse(body: dict[str, Any]) -> SimRequest:
    if not isinstance(body.get("model"), str):
        raise WireError("'model' is required")
    raw_messages = body.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        raise WireError("'messages' must be a non-empty list")
    messages = []
    for raw in raw_messages:
        if not isinstance(raw, dict) or "role" not in raw:
            raise WireError("each message needs a 'role'")
        calls = [
            ToolCall(c["id"], c["function"]["name"], c["function"].get("arguments", ""))
            for c in raw.get("tool_calls") or []
        ]
        role = "system" if raw["role"] == "developer" else raw["role"]
        messages.append(Message(role, _text(raw.get("content")), calls, raw.get("tool_call_id")))
    tools = [t["function"]["name"] for t in body.get("tools") or [] if "function" in t]
    fmt = body.get("response_format") or {}
    return SimRequest(
        model=body["model"],
        messages=messages,
        tools=tools,
        tool_choice=body.get("tool_choice"),
        json_mode=fmt.get("type") in ("json_object", "json_schema"),
        seed=body.get("seed"),
        temperature=body.get("temperature"),
        canonical=canonical(body),
    )


def _message(reply: SimReply) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.tool_calls:
        msg["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ]
    return msg


def _usage(usage: Usage) -> dict[str, int]:
    return {
        "prompt_tokens": usage.prompt,
        "completion_tokens": usage.completion,
        "total_tokens": usage.prompt + usage.completion,
    }


def _envelope(request: SimRequest, obj: str) -> dict[str, Any]:
    return {
        "id": ident("chatcmpl-", request),
        "object": obj,
        "created": CREATED,
        "model": request.model,
        "system_fingerprint": "fp_judgeaudit_sim",
    }


def render(request: SimRequest, reply: SimReply, usage: Usage) -> dict[str, Any]:
    choice = {"index": 0, "message": _message(reply), "finish_reason": reply.finish_reason}
    return {**_envelope(request, "chat.completion"), "choices": [choice], "usage": _usage(usage)}


def empty(request: SimRequest, usage: Usage) -> dict[str, Any]:
    return {**_envelope(request, "chat.completion"), "choices": [], "usage": _usage(usage)}


def stream(request: SimRequest, reply: SimReply, usage: Usage) -> list[bytes]:
    env = _envelope(request, "chat.completion.chunk")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return sse({**env, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    out = [chunk({"role": "assistant", "content": ""})]
    if reply.text:
        out += [chunk({"content": piece}) for piece in chunks(reply.text)]
    for index, call in enumerate(reply.tool_calls):
        head = {"index": index, "id": call.id, "type": "function"}
        out.append(
            chunk({"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]})
        )
        for piece in chunks(call.arguments):
            out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    out.append(chunk({}, reply.finish_reason))
    out.append(sse({**env, "choices": [], "usage": _usage(usage)}))
    out.append(sse("[DONE]"))
    return out


def error(status: int, message: str, kind: str) -> dict[str, Any]:
    codes = {401: "invalid_api_key", 429: "rate_limit_exceeded", 400: "invalid_request"}
    return {"error": {"message": message, "type": kind, "param": None, "code": codes.get(status)}}

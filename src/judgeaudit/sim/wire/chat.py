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
        return "".join(_str(p.get("text")) for p in content if isinstance(p, dict))
    raise WireError("message content must be a string or a list of parts")


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def parse(body: dict[str, Any]) -> SimRequest:
    if not isinstance(body.get("model"), str):
        raise WireError("'model' is required")
    raw_messages = body.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        raise WireError("'messages' must be a non-empty list")
    messages = []
    for index, raw in enumerate(raw_messages):
        if not isinstance(raw, dict) or not isinstance(raw.get("role"), str):
            raise WireError(f"messages[{index}]: an object with a string 'role' is required")
        calls = [_tool_call(c, f"messages[{index}].tool_calls") for c in _list(raw, "tool_calls")]
        call_id = raw.get("tool_call_id")
        if call_id is not None and not isinstance(call_id, str):
            raise WireError(f"messages[{index}].tool_call_id must be a string")
        role = "system" if raw["role"] == "developer" else raw["role"]
        messages.append(Message(role, _text(raw.get("content")), calls, call_id))
    tools = [_tool_name(t, index) for index, t in enumerate(_list(body, "tools"))]
    fmt = body.get("response_format") or {}
    if not isinstance(fmt, dict):
        raise WireError("'response_format' must be an object")
    seed = body.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise WireError("'seed' must be an integer")
    return SimRequest(
        model=body["model"],
        messages=messages,
        tools=[t for t in tools if t],
        tool_choice=body.get("tool_choice"),
        json_mode=fmt.get("type") in ("json_object", "json_schema"),
        seed=seed,
        temperature=body.get("temperature"),
        canonical=canonical(body),
    )


def _list(obj: dict[str, Any], key: str) -> list[Any]:
    value = obj.get(key) or []
    if not isinstance(value, list):
        raise WireError(f"'{key}' must be a list")
    return value


def _tool_call(raw: Any, where: str) -> ToolCall:
    function = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise WireError(f"{where}: each call needs a 'function' with a string 'name'")
    arguments = function.get("arguments", "")
    return ToolCall(
        str(raw.get("id", "")), function["name"], arguments if isinstance(arguments, str) else ""
    )


def _tool_name(raw: Any, index: int) -> str:
    if not isinstance(raw, dict):
        raise WireError(f"tools[{index}] must be an object")
    function = raw.get("function")
    if function is None:
        return ""
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise WireError(f"tools[{index}].function needs a string 'name'")
    return str(function["name"])


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

"""A chat reply → an Anthropic Messages response, whole or as the SSE events Claude Code reads.

The stream runs ``message_start`` → per block ``content_block_start`` / ``…_delta`` /
``content_block_stop`` → ``message_delta`` (stop reason, usage) → ``message_stop``. Upstream
reasoning text becomes a ``thinking`` block with an empty signature (it was not signed by
Anthropic; the bridge drops thinking blocks when they come back). A failure after the stream
started ends it with an ``error`` event, as the Anthropic API does.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from judgeaudit.bridge import sse
from judgeaudit.bridge.chat import ChatOutcome, Delta, ToolCall, Usage
from judgeaudit.bridge.errors import BridgeError, anthropic_body
from judgeaudit.bridge.messages_in import MessagesContext

STOP_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}


def _usage(usage: Usage | None, output: bool = True) -> dict[str, int]:
    usage = usage or Usage()
    out = {
        "input_tokens": max(0, usage.input - usage.cached),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": usage.cached,
    }
    if output:
        out["output_tokens"] = usage.output
    return out


def stop_reason(outcome: ChatOutcome) -> str:
    if outcome.tool_calls:
        return "tool_use"  # some gateways say "stop" after a tool call
    return STOP_REASONS.get(outcome.finish_reason or "stop", "end_turn")


def _input(call: ToolCall) -> dict[str, Any]:
    """Tool input as an object; arguments that are not a JSON object are kept under
    ``_raw_arguments`` so Claude Code reports the bad call to the model instead of crashing."""
    if not call.arguments.strip():
        return {}
    try:
        value = json.loads(call.arguments)
    except json.JSONDecodeError:
        return {"_raw_arguments": call.arguments}
    return value if isinstance(value, dict) else {"_raw_arguments": call.arguments}


def _tool_block(call: ToolCall) -> dict[str, Any]:
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": _input(call)}


def _message(
    message_id: str,
    model: str,
    content: list[dict[str, Any]],
    stop: str | None,
    usage: dict[str, int],
) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }


def render(outcome: ChatOutcome, context: MessagesContext) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if outcome.reasoning:
        content.append({"type": "thinking", "thinking": outcome.reasoning, "signature": ""})
    if outcome.text:
        content.append({"type": "text", "text": outcome.text})
    content += [_tool_block(c) for c in outcome.tool_calls]
    return _message(
        "msg_" + uuid.uuid4().hex[:24],
        context.model,
        content,
        stop_reason(outcome),
        _usage(outcome.usage),
    )


class MessagesStream:
    """Turns live chat deltas into Anthropic stream events."""

    def __init__(self, context: MessagesContext) -> None:
        self.context = context
        self.message_id = "msg_" + uuid.uuid4().hex[:24]
        self._index = -1
        self._open: str | None = None  # "text" | "thinking"

    @staticmethod
    def _event(kind: str, **data: Any) -> bytes:
        return sse.encode({"type": kind, **data}, event=kind)

    def start(self) -> bytes:
        usage = {**_usage(None), "output_tokens": 0}
        message = _message(self.message_id, self.context.model, [], None, usage)
        return self._event("message_start", message=message)

    def _start_block(self, block: dict[str, Any]) -> bytes:
        out = self._close()
        self._index += 1
        self._open = block["type"]
        return out + self._event("content_block_start", index=self._index, content_block=block)

    def _close(self) -> bytes:
        if self._open is None:
            return b""
        out = b""
        if self._open == "thinking":
            out = self._event(
                "content_block_delta",
                index=self._index,
                delta={"type": "signature_delta", "signature": ""},
            )
        self._open = None
        return out + self._event("content_block_stop", index=self._index)

    def delta(self, delta: Delta) -> bytes:
        out = b""
        if delta.kind == "reasoning":
            if self._open != "thinking":
                out = self._start_block({"type": "thinking", "thinking": "", "signature": ""})
            body = {"type": "thinking_delta", "thinking": delta.text}
        else:
            if self._open != "text":
                out = self._start_block({"type": "text", "text": ""})
            body = {"type": "text_delta", "text": delta.text}
        return out + self._event("content_block_delta", index=self._index, delta=body)

    def finish(self, outcome: ChatOutcome) -> bytes:
        out = self._close()
        for call in outcome.tool_calls:
            block = _tool_block(call)
            out += self._start_block({**block, "input": {}})
            out += self._event(
                "content_block_delta",
                index=self._index,
                delta={
                    "type": "input_json_delta",
                    "partial_json": json.dumps(block["input"], ensure_ascii=False),
                },
            )
            out += self._close()
        out += self._event(
            "message_delta",
            delta={"stop_reason": stop_reason(outcome), "stop_sequence": None},
            usage=_usage(outcome.usage),
        )
        return out + self._event("message_stop")

    def fail(self, error: BridgeError) -> bytes:
        body = anthropic_body(error)
        return sse.encode(body, event="error")

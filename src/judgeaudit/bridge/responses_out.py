"""A chat reply → a Responses API response, whole or as the SSE events Codex reads.

The stream runs ``response.created`` → ``response.in_progress`` → per output item
``output_item.added`` … deltas … ``output_item.done`` → ``response.completed`` (or
``response.incomplete`` when the upstream stopped at its token limit). Upstream reasoning text
(``reasoning_content``) is passed through as a ``reasoning`` item with a summary, so Codex shows
it; the item carries no ``encrypted_content`` and is dropped again when Codex sends it back.
An upstream that fails mid-stream ends the stream with ``response.failed``, which Codex retries.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from judgeaudit.bridge import sse
from judgeaudit.bridge.chat import ChatOutcome, Delta, ToolCall, Usage
from judgeaudit.bridge.errors import BridgeError
from judgeaudit.bridge.responses_in import ResponsesContext

INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}


def _usage(usage: Usage | None) -> dict[str, Any] | None:
    if usage is None:
        return None
    return {
        "input_tokens": usage.input,
        "input_tokens_details": {"cached_tokens": usage.cached},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning},
        "total_tokens": usage.input + usage.output,
    }


def _new_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


def _reasoning_item(item_id: str, text: str) -> dict[str, Any]:
    summary = [{"type": "summary_text", "text": text}] if text else []
    return {"type": "reasoning", "id": item_id, "summary": summary}


def _message_item(item_id: str, text: str, status: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": content,
    }


def _call_item(call: ToolCall, context: ResponsesContext, status: str) -> dict[str, Any]:
    tool = context.tools.get(call.name)
    if tool is not None and tool.kind == "custom":
        try:
            raw = json.loads(call.arguments or "{}")
            value = raw.get("input", "") if isinstance(raw, dict) else call.arguments
        except json.JSONDecodeError:
            value = call.arguments  # a model that sent the raw input itself
        return {
            "type": "custom_tool_call",
            "id": "ctc_" + call.id,
            "status": status,
            "call_id": call.id,
            "name": tool.name,
            "input": value if isinstance(value, str) else json.dumps(value, ensure_ascii=False),
        }
    item: dict[str, Any] = {
        "type": "function_call",
        "id": "fc_" + call.id,
        "status": status,
        "call_id": call.id,
        "name": tool.name if tool is not None else call.name,
        "arguments": call.arguments or "{}",
    }
    if tool is not None and tool.namespace:
        item["namespace"] = tool.namespace
    return item


def _status(outcome: ChatOutcome) -> tuple[str, dict[str, str] | None]:
    reason = INCOMPLETE.get(outcome.finish_reason or "")
    return ("incomplete", {"reason": reason}) if reason else ("completed", None)


def _envelope(
    response_id: str,
    context: ResponsesContext,
    status: str,
    output: list[dict[str, Any]],
    usage: Usage | None,
    created: int,
    incomplete: dict[str, str] | None = None,
    error: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "status": status,
        "error": error,
        "incomplete_details": incomplete,
        "model": context.model,
        "output": output,
        "usage": _usage(usage),
        **context.echo,
        # The request's tools and instructions (tens of kB from Codex) are repeated only in the
        # final response, not in every in-progress snapshot.
        **({"tools": [], "instructions": None} if status == "in_progress" else {}),
    }


def render(outcome: ChatOutcome, context: ResponsesContext) -> dict[str, Any]:
    """A non-streamed response body."""
    status, incomplete = _status(outcome)
    output: list[dict[str, Any]] = []
    if outcome.reasoning:
        output.append(_reasoning_item(_new_id("rs_"), outcome.reasoning))
    if outcome.text:
        output.append(_message_item(_new_id("msg_"), outcome.text, "completed"))
    output += [_call_item(c, context, "completed") for c in outcome.tool_calls]
    return _envelope(
        _new_id("resp_"), context, status, output, outcome.usage, int(time.time()), incomplete
    )


class ResponsesStream:
    """Turns live chat deltas into Responses events; one instance per streamed response."""

    def __init__(self, context: ResponsesContext) -> None:
        self.context = context
        self.response_id = _new_id("resp_")
        self.created = int(time.time())
        self._seq = 0
        self._output: list[dict[str, Any]] = []
        self._open: dict[str, Any] | None = None  # the item being streamed
        self._open_text = ""

    def _event(self, kind: str, **data: Any) -> bytes:
        event = sse.encode({"type": kind, "sequence_number": self._seq, **data}, event=kind)
        self._seq += 1
        return event

    def start(self) -> bytes:
        head = _envelope(self.response_id, self.context, "in_progress", [], None, self.created)
        return self._event("response.created", response=head) + self._event(
            "response.in_progress", response=head
        )

    def delta(self, delta: Delta) -> bytes:
        out = b""
        wanted = "reasoning" if delta.kind == "reasoning" else "message"
        if self._open is None or self._open["type"] != wanted:
            out += self._close()
            out += self._open_item(wanted)
        assert self._open is not None
        index = len(self._output)
        self._open_text += delta.text
        if wanted == "reasoning":
            return out + self._event(
                "response.reasoning_summary_text.delta",
                item_id=self._open["id"],
                output_index=index,
                summary_index=0,
                delta=delta.text,
            )
        return out + self._event(
            "response.output_text.delta",
            item_id=self._open["id"],
            output_index=index,
            content_index=0,
            delta=delta.text,
            logprobs=[],
        )

    def _open_item(self, kind: str) -> bytes:
        index = len(self._output)
        self._open_text = ""
        if kind == "reasoning":
            self._open = _reasoning_item(_new_id("rs_"), "")
            part = {"type": "summary_text", "text": ""}
            return self._event(
                "response.output_item.added", output_index=index, item=self._open
            ) + self._event(
                "response.reasoning_summary_part.added",
                item_id=self._open["id"],
                output_index=index,
                summary_index=0,
                part=part,
            )
        self._open = {**_message_item(_new_id("msg_"), "", "in_progress"), "content": []}
        text_part: dict[str, Any] = {
            "type": "output_text",
            "text": "",
            "annotations": [],
            "logprobs": [],
        }
        return self._event(
            "response.output_item.added", output_index=index, item=self._open
        ) + self._event(
            "response.content_part.added",
            item_id=self._open["id"],
            output_index=index,
            content_index=0,
            part=text_part,
        )

    def _close(self) -> bytes:
        if self._open is None:
            return b""
        item, text, index = self._open, self._open_text, len(self._output)
        self._open = None
        if item["type"] == "reasoning":
            done = _reasoning_item(item["id"], text)
            out = self._event(
                "response.reasoning_summary_text.done",
                item_id=item["id"],
                output_index=index,
                summary_index=0,
                text=text,
            ) + self._event(
                "response.reasoning_summary_part.done",
                item_id=item["id"],
                output_index=index,
                summary_index=0,
                part={"type": "summary_text", "text": text},
            )
        else:
            done = _message_item(item["id"], text, "completed")
            part = done["content"][0]
            out = self._event(
                "response.output_text.done",
                item_id=item["id"],
                output_index=index,
                content_index=0,
                text=text,
                logprobs=[],
            ) + self._event(
                "response.content_part.done",
                item_id=item["id"],
                output_index=index,
                content_index=0,
                part=part,
            )
        self._output.append(done)
        return out + self._event("response.output_item.done", output_index=index, item=done)

    def _tool_call(self, call: ToolCall) -> bytes:
        index = len(self._output)
        done = _call_item(call, self.context, "completed")
        self._output.append(done)
        custom = done["type"] == "custom_tool_call"
        field, prefix = (
            ("input", "response.custom_tool_call_input")
            if custom
            else (
                "arguments",
                "response.function_call_arguments",
            )
        )
        added = {**done, "status": "in_progress", field: ""}
        ids = {"item_id": done["id"], "output_index": index}
        return (
            self._event("response.output_item.added", output_index=index, item=added)
            + self._event(f"{prefix}.delta", **ids, delta=done[field])
            + self._event(f"{prefix}.done", **ids, **{field: done[field]})
            + self._event("response.output_item.done", output_index=index, item=done)
        )

    def finish(self, outcome: ChatOutcome) -> bytes:
        """Close open items, emit the tool calls, then the terminal event."""
        out = self._close()
        for call in outcome.tool_calls:
            out += self._tool_call(call)
        status, incomplete = _status(outcome)
        body = _envelope(
            self.response_id,
            self.context,
            status,
            self._output,
            outcome.usage,
            self.created,
            incomplete,
        )
        kind = "response.completed" if status == "completed" else "response.incomplete"
        return out + self._event(kind, response=body)

    def fail(self, error: BridgeError) -> bytes:
        """The upstream broke off after the stream started: a ``response.failed`` event."""
        out = self._close()
        detail = {"code": error.code or "server_error", "message": error.message}
        body = _envelope(
            self.response_id, self.context, "failed", self._output, None, self.created, None, detail
        )
        return out + self._event("response.failed", response=body)

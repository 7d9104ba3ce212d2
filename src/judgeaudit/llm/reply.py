"""A Chat Completions reply (a JSON body, or streamed chunks) read into a :class:`CallResult`.

Both transports hand the raw JSON here instead of building the SDK's response models: those
cost more CPU per call than the whole rest of the client, and for a judge on a local server at
tens of milliseconds that is the bottleneck. Only the fields we use are read, with the same
defaults the SDK's lenient models give (no content -> "", no finish_reason -> "stop", no usage
-> 0 tokens). A body that is not a completion is a :class:`BadReply`, retried like any
transient fault. Streamed chunks (plain dicts, from either transport) go through one
:class:`StreamAssembler`, so a streamed call reads the same on both.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from judgeaudit.llm.failure import BadReply


@dataclass
class CallResult:
    text: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    attempts: int = 1
    cached: bool = False
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def parse_completion(raw: bytes) -> CallResult:
    """The first choice of a non-streamed completion, its tool calls and token usage."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise BadReply("malformed reply (not JSON)") from None
    if not isinstance(body, dict):
        raise BadReply("malformed reply (not a completion object)")
    choices = body.get("choices")
    if not choices or not isinstance(choices, list):
        raise BadReply("empty reply (no choices)")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(choice, dict) or not isinstance(message, dict):
        raise BadReply("malformed reply (a choice without a message)")
    content = message.get("content")
    return CallResult(
        text=content if isinstance(content, str) else "",
        tool_calls=_tool_calls(message.get("tool_calls")),
        finish_reason=str(choice.get("finish_reason") or "stop"),
        prompt_tokens=_tokens(body.get("usage"), "prompt_tokens"),
        completion_tokens=_tokens(body.get("usage"), "completion_tokens"),
    )


def _tool_calls(raw: Any) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    for call in raw or []:
        if not isinstance(call, dict) or call.get("type", "function") != "function":
            continue
        function = call.get("function")
        if not isinstance(function, dict):
            raise BadReply("malformed reply (a tool call without a function)")
        calls.append(
            {
                "id": str(call.get("id") or ""),
                "name": str(function.get("name") or ""),
                "arguments": str(function.get("arguments") or ""),
            }
        )
    return calls


def _tokens(usage: Any, name: str) -> int:
    value = usage.get(name) if isinstance(usage, dict) else None
    return value if isinstance(value, int) else 0


class StreamAssembler:
    """Accumulates ``chat.completion.chunk`` dicts: text, tool-call fragments, finish, usage."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish = ""
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.saw_choice = False

    def add(self, chunk: Any) -> None:
        try:
            self._add(chunk)
        except (AttributeError, TypeError, ValueError):  # a field of the wrong shape
            raise BadReply(
                "malformed reply (a stream chunk that is not a completion chunk)"
            ) from None

    def _add(self, chunk: dict[str, Any]) -> None:
        if isinstance(usage := chunk.get("usage"), dict):
            self.prompt_tokens = _tokens(usage, "prompt_tokens")
            self.completion_tokens = _tokens(usage, "completion_tokens")
        for choice in chunk.get("choices") or []:
            self.saw_choice = True
            delta = choice.get("delta") or {}
            if isinstance(content := delta.get("content"), str):
                self.text.append(content)
            for call in delta.get("tool_calls") or []:
                slot = self.calls.setdefault(
                    int(call.get("index") or 0), {"id": "", "name": "", "arguments": ""}
                )
                slot["id"] = call.get("id") or slot["id"]
                function = call.get("function") or {}
                slot["name"] = function.get("name") or slot["name"]
                slot["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason"):
                self.finish = str(choice["finish_reason"])

    def result(self) -> CallResult:
        if not self.saw_choice:
            raise BadReply("empty reply (no choices streamed)")
        if not self.finish:
            raise BadReply("the stream ended before a finish_reason (truncated)")
        return CallResult(
            text="".join(self.text),
            tool_calls=[self.calls[i] for i in sorted(self.calls)],
            finish_reason=self.finish,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
        )

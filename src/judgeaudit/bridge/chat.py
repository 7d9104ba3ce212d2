"""The upstream side: a Chat Completions reply, whole or streamed, in one neutral shape.

Both front ends (Responses, Messages) render from :class:`ChatOutcome` and, when streaming, from
the text and reasoning deltas :class:`ChatStreamReader` hands out as chunks arrive. Tool calls
are assembled whole before they are rendered, so chunks that interleave several calls' argument
fragments still come out right; text and reasoning stream as they arrive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Usage:
    input: int = 0
    output: int = 0
    cached: int = 0
    reasoning: int = 0

    @classmethod
    def from_chat(cls, raw: Any) -> Usage | None:
        if not isinstance(raw, dict):
            return None
        prompt = raw.get("prompt_tokens_details") or {}
        completion = raw.get("completion_tokens_details") or {}
        return cls(
            input=_int(raw.get("prompt_tokens")),
            output=_int(raw.get("completion_tokens")),
            cached=_int(prompt.get("cached_tokens") if isinstance(prompt, dict) else 0),
            reasoning=_int(
                completion.get("reasoning_tokens") if isinstance(completion, dict) else 0
            ),
        )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str = ""


@dataclass
class ChatOutcome:
    """Everything a reply said, once it is complete."""

    id: str = ""
    model: str = ""
    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None  # None: the stream ended before the upstream finished
    usage: Usage | None = None


def _reasoning_of(part: dict[str, Any]) -> str:
    """Reasoning text as gateways send it: ``reasoning_content`` (DeepSeek, Qwen) or
    ``reasoning`` (OpenRouter, vLLM)."""
    value = part.get("reasoning_content")
    if not isinstance(value, str):
        value = part.get("reasoning")
    return value if isinstance(value, str) else ""


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def parse_completion(body: dict[str, Any]) -> ChatOutcome:
    """A non-streamed ``chat.completion`` body."""
    outcome = ChatOutcome(id=str(body.get("id") or ""), model=str(body.get("model") or ""))
    outcome.usage = Usage.from_chat(body.get("usage"))
    choices = body.get("choices") or []
    if not choices or not isinstance(choices[0], dict):
        outcome.finish_reason = "stop"
        return outcome
    choice = choices[0]
    message = choice.get("message") or {}
    # A refusal (OpenAI structured outputs) is what the model said: shown as text.
    outcome.text = _text_of(message.get("content")) or str(message.get("refusal") or "")
    outcome.reasoning = _reasoning_of(message)
    for raw in message.get("tool_calls") or []:
        function = raw.get("function") or {}
        outcome.tool_calls.append(
            ToolCall(
                str(raw.get("id") or ""),
                str(function.get("name") or ""),
                _arguments(function.get("arguments")),
            )
        )
    outcome.finish_reason = choice.get("finish_reason") or "stop"
    return outcome


def _arguments(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Delta:
    kind: str  # "text" | "reasoning"
    text: str


class ChatStreamReader:
    """Feed ``chat.completion.chunk`` objects; collect the outcome and hand out live deltas."""

    def __init__(self) -> None:
        self.outcome = ChatOutcome()
        self._calls: dict[int, ToolCall] = {}

    def feed(self, chunk: dict[str, Any]) -> list[Delta]:
        out = self.outcome
        out.id = out.id or str(chunk.get("id") or "")
        out.model = out.model or str(chunk.get("model") or "")
        usage = Usage.from_chat(chunk.get("usage"))
        if usage is not None:
            out.usage = usage
        deltas: list[Delta] = []
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            reasoning = _reasoning_of(delta)
            if reasoning:
                out.reasoning += reasoning
                deltas.append(Delta("reasoning", reasoning))
            text = _text_of(delta.get("content")) or _text_of(delta.get("refusal"))
            if text:
                out.text += text
                deltas.append(Delta("text", text))
            for raw in delta.get("tool_calls") or []:
                self._tool_fragment(raw)
            if choice.get("finish_reason"):
                out.finish_reason = choice["finish_reason"]
        return deltas

    def _tool_fragment(self, raw: dict[str, Any]) -> None:
        index = raw.get("index")
        if not isinstance(index, int):
            index = len(self._calls)
        function = raw.get("function") or {}
        call = self._calls.get(index)
        if call is None:
            call = self._calls[index] = ToolCall(str(raw.get("id") or ""), "")
        if raw.get("id") and not call.id:
            call.id = str(raw["id"])
        if function.get("name") and not call.name:
            call.name = str(function["name"])
        call.arguments += _arguments(function.get("arguments"))

    def finish(self) -> ChatOutcome:
        """The outcome with every tool call assembled (ids made up where the upstream sent none)."""
        calls = [self._calls[i] for i in sorted(self._calls)]
        for position, call in enumerate(calls):
            if not call.id:
                call.id = f"call_{self.outcome.id or 'bridge'}_{position}"
        self.outcome.tool_calls = calls
        return self.outcome

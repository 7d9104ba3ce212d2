"""Wire formats: each module turns its API's request into a SimRequest and a SimReply back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from judgeaudit.sim.types import SimReply, SimRequest, approx_tokens, digest, to_json

#: Fixed so that the same request gives the same bytes; the provider is a simulation.
CREATED = 1767225600
STREAM_KEYS = ("stream", "stream_options")
_STREAM_KEYS = frozenset(STREAM_KEYS)


class WireError(ValueError):
    """A request body this API would reject (answered with 400 in the API's own error shape)."""


@dataclass(frozen=True)
class Usage:
    prompt: int
    completion: int


#: ``json.dumps(x, sort_keys=True, ensure_ascii=False)`` without the encoder json.dumps builds
#: on every call that passes options (the same text).
_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False)


def canonical(body: dict[str, Any]) -> str:
    """The request as canonical JSON without streaming switches (streamed = same content)."""
    if not _STREAM_KEYS.isdisjoint(body):
        body = {k: v for k, v in body.items() if k not in STREAM_KEYS}
    return _CANONICAL.encode(body)


def usage_of(request: SimRequest, reply: SimReply) -> Usage:
    prompt = sum(approx_tokens(m.content) for m in request.messages) + 3 * len(request.messages)
    out = approx_tokens(reply.text) if reply.text else 0
    out += sum(approx_tokens(c.arguments) + 3 for c in reply.tool_calls)
    return Usage(prompt=prompt, completion=max(out, 1))


def ident(prefix: str, request: SimRequest) -> str:
    return prefix + digest(request.canonical)[:24]


def chunks(text: str, size: int = 24) -> list[str]:
    """Split text for streaming so deltas concatenate back to exactly the text."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def sse(data: dict[str, Any] | str, event: str | None = None) -> bytes:
    payload = data if isinstance(data, str) else to_json(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


class Wire(Protocol):
    def parse(self, body: dict[str, Any]) -> SimRequest: ...

    def render(self, request: SimRequest, reply: SimReply, usage: Usage) -> dict[str, Any]: ...

    def stream(self, request: SimRequest, reply: SimReply, usage: Usage) -> list[bytes]: ...

    def error(self, status: int, message: str, kind: str) -> dict[str, Any]: ...

    def empty(self, request: SimRequest, usage: Usage) -> dict[str, Any]: ...

"""Provider-neutral request/reply shapes that every wire format is converted to and from."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, as on the wire


@dataclass
class Message:
    role: str  # system | user | assistant | tool
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None


@dataclass
class SimRequest:
    model: str
    messages: list[Message]
    tools: list[str] = field(default_factory=list)
    tool_choice: Any = None
    json_mode: bool = False
    seed: int | None = None
    temperature: float | None = None
    canonical: str = ""  # the request body as canonical JSON, for hashing

    @property
    def system(self) -> str:
        return "\n".join(m.content for m in self.messages if m.role == "system")

    def by_role(self, role: str) -> list[Message]:
        return [m for m in self.messages if m.role == role]


@dataclass
class SimReply:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.tool_calls else "stop"


def digest(*parts: object) -> str:
    """A stable hex digest of JSON-serialisable parts (the basis of every simulated choice)."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def rng_for(*parts: object) -> random.Random:
    return random.Random(int(digest(*parts)[:16], 16))


def has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def approx_tokens(text: str) -> int:
    """A deterministic token estimate (about four characters a token, CJK one a token)."""
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return max(1, cjk + (len(text) - cjk + 3) // 4)

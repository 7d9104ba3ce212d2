"""Provider-neutral request/reply shapes that every wire format is converted to and from."""

from __future__ import annotations

import hashlib
import json
import random
import re
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


CJK_RE = re.compile("[\u4e00-\u9fff]")
#: What ``json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)`` builds per call.
_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)


def digest(*parts: object) -> str:
    """A stable hex digest of JSON-serialisable parts (the basis of every simulated choice)."""
    return hashlib.sha256(_ENCODER.encode(parts).encode("utf-8")).hexdigest()


def rng_for(*parts: object) -> random.Random:
    return random.Random(int(digest(*parts)[:16], 16))


def has_cjk(text: str) -> bool:
    return CJK_RE.search(text) is not None


def approx_tokens(text: str) -> int:
    """A deterministic token estimate (about four characters a token, CJK one a token)."""
    if text.isascii():  # no CJK to count: most prompts, at a fraction of the regex's cost
        return max(1, (len(text) + 3) // 4)
    cjk = len(CJK_RE.findall(text))
    return max(1, cjk + (len(text) - cjk + 3) // 4)

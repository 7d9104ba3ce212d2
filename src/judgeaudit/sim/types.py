"""Provider-neutral request/reply shapes that every wire format is converted to and from."""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from json.encoder import encode_basestring
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


#: ``json.dumps(obj, ensure_ascii=False)``, the same text, without building an encoder per call
#: (how every reply body and JSON reply text is written).
to_json = json.JSONEncoder(ensure_ascii=False).encode


def digest(*parts: object) -> str:
    """A stable hex digest of JSON-serialisable parts (the basis of every simulated choice)."""
    return hashlib.sha256(_encode(parts).encode("utf-8")).hexdigest()


def _encode(parts: tuple[object, ...]) -> str:
    """``_ENCODER.encode(parts)``, the same text; parts that are all plain strings and ints
    (every call on the serving path) are joined here, without the encoder the json module
    builds per call (a digest of the request runs several times per call)."""
    out = []
    for part in parts:
        if type(part) is str:
            out.append(encode_basestring(part))
        elif type(part) is int:
            out.append(int.__repr__(part))
        else:
            return _ENCODER.encode(parts)
    return "[" + ", ".join(out) + "]"


def seed_for(*parts: object) -> int:
    """The seed of :func:`rng_for` (for a caller that keeps it)."""
    return int(digest(*parts)[:16], 16)


def rng_for(*parts: object) -> random.Random:
    return random.Random(seed_for(*parts))


def has_cjk(text: str) -> bool:
    return not text.isascii() and CJK_RE.search(text) is not None


def approx_tokens(text: str) -> int:
    """A deterministic token estimate (about four characters a token, CJK one a token)."""
    if text.isascii():  # no CJK to count: most prompts, at a fraction of the regex's cost
        return max(1, (len(text) + 3) // 4)
    cjk = len(CJK_RE.findall(text))
    return max(1, cjk + (len(text) - cjk + 3) // 4)

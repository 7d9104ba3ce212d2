"""The bridge's bad-input table: one row per hostile request or hostile upstream reply.

A row is the route, the raw body (bytes, so it can be anything), the status the bridge must
answer and a needle its error message must hold; ``model`` picks how the hostile upstream
answers (see ``test_bridge_abuse.HostileUpstream``). Every refusal must be in the calling API's
own error format, never a 500.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MESSAGES = "/v1/messages"
RESPONSES = "/v1/responses"
COUNT = "/v1/messages/count_tokens"


@dataclass(frozen=True)
class BridgeCase:
    id: str
    path: str
    body: bytes
    status: int
    needle: str


def msg(**fields: Any) -> bytes:
    body: dict[str, Any] = {
        "model": "ok",
        "max_tokens": 16,
        "messages": [{"role": "user", "content": "hi"}],
    }
    body.update(fields)
    return json.dumps(body).encode()


def resp(**fields: Any) -> bytes:
    body: dict[str, Any] = {"model": "ok", "input": "hi"}
    body.update(fields)
    return json.dumps(body).encode()


def user(*blocks: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": list(blocks)}]


DEEP = b'{"model":"ok","max_tokens":5,"messages":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
HUGE_INT = b'{"model":"ok","max_tokens":1' + b"0" * 5000 + b',"messages":[]}'

CASES = [
    BridgeCase("deep-json", MESSAGES, DEEP, 400, "nested"),
    BridgeCase("deep-json-responses", RESPONSES, DEEP, 400, "nested"),
    BridgeCase("deep-count-tokens", COUNT, DEEP, 400, "nested"),
    BridgeCase("huge-integer", MESSAGES, HUGE_INT, 400, "too large"),
    BridgeCase("integer-past-2-53", MESSAGES, msg(max_tokens=10**30), 400, "too large"),
    BridgeCase("max-tokens-negative", MESSAGES, msg(max_tokens=-5), 400, "max_tokens"),
    BridgeCase("nan", MESSAGES, msg().replace(b"16", b"NaN"), 400, "NaN"),
    BridgeCase(
        "block-image-source-string",
        MESSAGES,
        msg(messages=user({"type": "image", "source": "x"})),
        400,
        "messages.0.content.0.source",
    ),
    BridgeCase("block-not-object", MESSAGES, msg(messages=user(5)), 400, "messages.0.content.0"),
    BridgeCase(
        "block-text-not-string",
        MESSAGES,
        msg(messages=user({"type": "text", "text": {"a": 1}})),
        400,
        "messages.0.content.0.text",
    ),
    BridgeCase(
        "tool-result-bad-content",
        MESSAGES,
        msg(messages=user({"type": "tool_result", "tool_use_id": "t", "content": 7})),
        400,
        "messages.0.content.0.content",
    ),
    BridgeCase("tools-string", MESSAGES, msg(tools="garbage"), 400, "tools"),
    BridgeCase("tools-name-number", MESSAGES, msg(tools=[{"name": 5}]), 400, "tools.0.name"),
    BridgeCase(
        "tools-schema-missing", MESSAGES, msg(tools=[{"name": "Read"}]), 400, "input_schema"
    ),
    BridgeCase("tool-choice-string", MESSAGES, msg(tool_choice="auto"), 400, "tool_choice"),
    BridgeCase(
        "tool-choice-banana", MESSAGES, msg(tool_choice={"type": "banana"}), 400, "tool_choice"
    ),
    BridgeCase("system-number", MESSAGES, msg(system=5), 400, "system: must be a string or a list"),
    BridgeCase("system-image-block", MESSAGES, msg(system=[{"type": "image"}]), 400, "system.0"),
    BridgeCase("count-tokens-bad-block", COUNT, msg(messages=user(5)), 400, "messages.0"),
    BridgeCase("responses-tools-garbage", RESPONSES, resp(tools=[1, 2]), 400, "tools[0]"),
    BridgeCase("responses-tool-choice-number", RESPONSES, resp(tool_choice=5), 400, "tool_choice"),
    BridgeCase(
        "responses-item-bad-role",
        RESPONSES,
        resp(input=[{"role": "wizard", "content": "x"}]),
        400,
        "input[0].role",
    ),
    BridgeCase(
        "responses-call-output-number",
        RESPONSES,
        resp(input=[{"type": "function_call_output", "call_id": "c", "output": 5}]),
        400,
        "input[0].output",
    ),
    BridgeCase("not-utf8", MESSAGES, b'{"model":"\xff"}', 400, "UTF-8"),
    # The hostile upstream, by model name.
    BridgeCase("upstream-no-choices", MESSAGES, msg(model="no-choices"), 502, "no choices"),
    BridgeCase(
        "upstream-no-choices-responses", RESPONSES, resp(model="no-choices"), 502, "no choices"
    ),
    BridgeCase("upstream-choice-string", MESSAGES, msg(model="choice-string"), 502, "choices[0]"),
    BridgeCase("upstream-deep", MESSAGES, msg(model="deep"), 502, "nested"),
    BridgeCase("upstream-300mb", MESSAGES, msg(model="huge"), 502, "MB limit"),
    BridgeCase("upstream-gzip-bomb", RESPONSES, resp(model="gzip-bomb"), 502, "MB limit"),
]

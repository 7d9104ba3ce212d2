"""The bridge on the requests the pinned Claude Code and Codex releases really sent (recorded by
``python -m tests.contract.record_fixtures``): every one becomes a chat request a strict chat
template accepts: one system message, first; no two user messages in a row; tool results right
after their calls."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from judgeaudit.bridge import messages_in, responses_in
from judgeaudit.bridge.errors import BridgeError
from tests.bridge_helpers import FIXTURES, fixture
from tests.contract.versions import pinned


def recorded(app: str) -> list[dict[str, Any]]:
    name = f"{app}-{pinned(app)}.json"
    assert (FIXTURES / name).exists(), f"record {name}: python -m tests.contract.record_fixtures"
    requests: list[dict[str, Any]] = fixture(name)["requests"]
    return [r["body"] for r in requests]


def assert_strict_chat(messages: list[dict[str, Any]]) -> None:
    roles = [m["role"] for m in messages]
    assert "system" not in roles[1:], roles
    assert not any(a == b == "user" for a, b in pairwise(roles)), roles
    open_calls: set[str] = set()
    for message in messages:
        if message["role"] == "tool":
            assert message["tool_call_id"] in open_calls, roles
            open_calls.discard(message["tool_call_id"])
        else:
            assert not open_calls, f"a call without its result before {message['role']}: {roles}"
            open_calls = {c["id"] for c in message.get("tool_calls") or []}


def test_every_claude_code_request_has_a_system_item_and_translates() -> None:
    bodies = recorded("claude")
    assert len(bodies) >= 2  # the tool call, then its result
    for body in bodies:
        assert "system" in [m["role"] for m in body["messages"]]  # what 2.1.332 sends
        chat, _ = messages_in.to_chat(body)
        assert_strict_chat(chat["messages"])
        first_user = chat["messages"][1]
        text = (
            first_user["content"]
            if isinstance(first_user["content"], str)
            else "".join(part.get("text", "") for part in first_user["content"])
        )
        assert "<system-reminder>\n# Environment" in text  # where Claude Code put it: this turn
        assert "# Environment" not in chat["messages"][0]["content"]
    last, _ = messages_in.to_chat(bodies[-1])
    assert [m["role"] for m in last["messages"]] == ["system", "user", "assistant", "tool"]
    assert "file content XYZ" in last["messages"][-1]["content"]
    assert last["stream"] is True


def test_every_codex_request_translates() -> None:
    bodies = recorded("codex")
    assert len(bodies) >= 2
    for body in bodies:
        chat, _ = responses_in.to_chat(body)
        assert_strict_chat(chat["messages"])
    last, _ = responses_in.to_chat(bodies[-1])
    assert [m["role"] for m in last["messages"]][-2:] == ["assistant", "tool"]
    assert "file content XYZ" in last["messages"][-1]["content"] and last["stream"] is True


def _system(text: str) -> dict[str, Any]:
    return {"role": "system", "content": [{"type": "text", "text": text}]}


CALL = {"type": "tool_use", "id": "c1", "name": "Read", "input": {}}
RESULT = {"type": "tool_result", "tool_use_id": "c1", "content": "ok"}


@pytest.mark.parametrize(
    ("messages", "roles", "holder"),
    [
        # after a user message: onto it
        ([{"role": "user", "content": "hi"}, _system("S")], ["user"], 0),
        # between a call and its result: after the tool message, on the next user text
        (
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [CALL]},
                _system("S"),
                {"role": "user", "content": [RESULT, {"type": "text", "text": "go on"}]},
            ],
            ["user", "assistant", "tool", "user"],
            3,
        ),
        # after an assistant turn, before nothing: a user message of its own at the end
        (
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "yo"},
                _system("S"),
            ],
            ["user", "assistant", "user"],
            2,
        ),
        # first, before any user message: in front of the first one
        ([_system("S"), {"role": "user", "content": "hi"}], ["user"], 0),
    ],
)
def test_a_system_item_becomes_a_reminder_in_its_own_turn(
    messages: list[dict[str, Any]], roles: list[str], holder: int
) -> None:
    chat, _ = messages_in.to_chat({"model": "m", "system": "top", "messages": messages})
    out = chat["messages"]
    assert out[0] == {"role": "system", "content": "top"}
    assert [m["role"] for m in out[1:]] == roles
    assert "<system-reminder>\nS\n</system-reminder>" in str(out[1 + holder]["content"])
    assert_strict_chat(out)


def test_only_system_items_is_refused() -> None:
    with pytest.raises(BridgeError) as caught:
        messages_in.to_chat({"model": "m", "messages": [_system("S")]})
    assert caught.value.status == 400 and "messages" in caught.value.message


def test_a_codex_developer_message_mid_conversation_becomes_a_reminder() -> None:
    body = {
        "model": "m",
        "instructions": "top",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {"role": "assistant", "content": [{"type": "output_text", "text": "yo"}]},
            {"role": "developer", "content": [{"type": "input_text", "text": "now read-only"}]},
            {"role": "user", "content": [{"type": "input_text", "text": "go"}]},
        ],
    }
    chat, _ = responses_in.to_chat(body)
    out = chat["messages"]
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert out[0]["content"] == "top"
    assert out[3]["content"] == "<system-reminder>\nnow read-only\n</system-reminder>\n\ngo"

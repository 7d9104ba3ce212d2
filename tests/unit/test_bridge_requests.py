"""Bridge request translation on recorded Codex and Claude Code requests and on edge shapes."""

from __future__ import annotations

import json

import pytest

from judgeaudit.bridge import messages_in, responses_in
from judgeaudit.bridge.errors import BridgeError
from tests.bridge_helpers import fixture


def test_codex_request_with_a_tool_result_becomes_one_chat_request() -> None:
    body = fixture("codex_tool_round_trip.json")
    chat, context = responses_in.to_chat(body)
    messages = chat["messages"]
    # The two leading developer messages merge into one system message, first; the two user
    # messages (environment context, then the prompt) into one: strict chat templates refuse
    # two user messages in a row.
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
    assert "You are a coding agent" in messages[0]["content"]
    assert "<permissions instructions>" in messages[0]["content"]
    assert "\n\nplease do it" in messages[1]["content"]
    call = messages[2]["tool_calls"][0]
    assert call["function"] == {"name": "exec_command", "arguments": '{"cmd": "cat note.txt"}'}
    assert messages[3]["tool_call_id"] == call["id"] == "call_81e746fd6fd540e50312"
    assert "file content XYZ" in messages[3]["content"]
    names = [t["function"]["name"] for t in chat["tools"]]
    # Function tools pass, namespaced ones are flattened, the hosted web_search is dropped.
    assert names[:2] == ["exec_command", "view_image"]
    assert "multi_agent_v1__close_agent" in names
    assert all(t["type"] == "function" for t in chat["tools"])
    assert context.tools["multi_agent_v1__close_agent"].namespace == "multi_agent_v1"
    assert chat["stream"] is True and chat["stream_options"] == {"include_usage": True}
    assert chat["tool_choice"] == "auto" and chat["parallel_tool_calls"] is True
    for dropped in ("store", "include", "reasoning", "prompt_cache_key", "client_metadata"):
        assert dropped not in chat


def test_responses_reasoning_items_are_dropped_and_custom_tools_become_functions() -> None:
    grammar = {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"}
    body = {
        "model": "m",
        "instructions": "be brief",
        "tools": [
            {"type": "custom", "name": "apply_patch", "description": "patch", "format": grammar},
            {"type": "local_shell"},
        ],
        "input": [
            {"type": "message", "role": "user", "content": "fix it"},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"},
            {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": "*** x"},
            {"type": "custom_tool_call_output", "call_id": "c1", "output": "Done"},
        ],
        "text": {"format": {"type": "json_schema", "name": "s", "schema": {"type": "object"}}},
        "max_output_tokens": 50,
    }
    chat, context = responses_in.to_chat(body)
    assert [m["role"] for m in chat["messages"]] == ["system", "user", "assistant", "tool"]
    assert "opaque" not in json.dumps(chat)
    arguments = json.loads(chat["messages"][2]["tool_calls"][0]["function"]["arguments"])
    assert arguments == {"input": "*** x"}
    (tool,) = chat["tools"]
    assert tool["function"]["parameters"]["required"] == ["input"]
    assert "start: /.+/" in tool["function"]["description"]
    assert context.tools["apply_patch"].kind == "custom"
    assert chat["response_format"]["json_schema"]["name"] == "s"
    assert chat["max_tokens"] == 50
    assert "stream" not in chat


def test_responses_parallel_calls_fold_into_one_assistant_message() -> None:
    body = {
        "model": "m",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "two things"}]},
            {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
            {"type": "function_call", "call_id": "b", "name": "g", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "a", "output": "1"},
            {
                "type": "function_call_output",
                "call_id": "b",
                "output": [{"type": "input_text", "text": "2"}],
            },
        ],
    }
    chat, _ = responses_in.to_chat(body)
    roles = [m["role"] for m in chat["messages"]]
    assert roles == ["user", "assistant", "tool", "tool"]
    assert [c["id"] for c in chat["messages"][1]["tool_calls"]] == ["a", "b"]
    assert chat["messages"][3]["content"] == "2"


def test_responses_string_input_and_images() -> None:
    chat, _ = responses_in.to_chat({"model": "m", "input": "hello"})
    assert chat["messages"] == [{"role": "user", "content": "hello"}]
    image = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}
    body = {
        "model": "m",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "see"}, image]}],
    }
    chat, _ = responses_in.to_chat(body)
    parts = chat["messages"][0]["content"]
    assert parts[1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"input": "x"}, "model"),
        ({"model": "m", "input": "x", "previous_response_id": "resp_1"}, "previous_response_id"),
        ({"model": "m", "input": 5}, "input"),
        ({"model": "m", "input": []}, "input"),
    ],
)
def test_responses_requests_no_chat_upstream_can_answer_are_refused(
    body: dict[str, object], needle: str
) -> None:
    with pytest.raises(BridgeError) as caught:
        responses_in.to_chat(body)
    assert caught.value.status == 400 and needle in caught.value.message


def test_the_profile_model_fills_in_a_missing_model() -> None:
    chat, context = responses_in.to_chat({"input": "x"}, "profile-model")
    assert chat["model"] == context.model == "profile-model"


def test_claude_code_request_with_a_tool_result_becomes_one_chat_request() -> None:
    body = fixture("claude_tool_round_trip.json")
    chat, context = messages_in.to_chat(body)
    messages = chat["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
    assert "x-anthropic-billing-header" in messages[0]["content"]
    assert "Claude agent" in messages[0]["content"]
    assert messages[1]["content"].endswith(
        'sim-tool: Read {"file_path": "/tmp/bridgecap/work/note.txt"}'
    )
    call = messages[2]["tool_calls"][0]
    assert call["function"]["name"] == "Read"
    assert json.loads(call["function"]["arguments"]) == {
        "file_path": "/tmp/bridgecap/work/note.txt"
    }
    assert messages[3] == {
        "role": "tool",
        "tool_call_id": call["id"],
        "content": "1\tfile content XYZ\n2\t",
    }
    assert [t["function"]["name"] for t in chat["tools"]] == ["Bash", "Read"]
    assert "$schema" not in chat["tools"][0]["function"]["parameters"]
    assert chat["max_tokens"] == body["max_tokens"] and chat["stream"] is True
    text = json.dumps(chat)
    assert "device_id" not in text and "cache_control" not in text and "adaptive" not in text
    assert context.model == "sim-chat"


def test_tool_results_come_first_and_their_images_follow_in_a_user_message() -> None:
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "QQ=="},
    }
    body = {
        "model": "m",
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                    {"type": "text", "text": "calling"},
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {"p": 1}},
                    {"type": "tool_use", "id": "t2", "name": "Bash", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "also this"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "ok"}, image],
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": "t2",
                        "content": "boom",
                        "is_error": True,
                    },
                ],
            },
        ],
    }
    chat, _ = messages_in.to_chat(body)
    roles = [m["role"] for m in chat["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "user"]
    assistant = chat["messages"][1]
    assert assistant["content"] == "calling" and len(assistant["tool_calls"]) == 2
    assert "hmm" not in json.dumps(chat) and "sig" not in json.dumps(chat)
    assert chat["messages"][3]["content"] == messages_in.ERROR_MARK + "boom"
    last = chat["messages"][4]["content"]
    assert last[0] == {"type": "text", "text": "also this"}
    assert last[1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,QQ=="}}


def test_anthropic_tool_choice_server_tools_and_stops() -> None:
    body = {
        "model": "m",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "x"}],
        "tools": [
            {"name": "f", "input_schema": {"type": "object"}},
            {"type": "web_search_20250305", "name": "web_search"},
        ],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
        "stop_sequences": ["a", "b", "c", "d", "e"],
        "top_k": 5,
        "thinking": {"type": "enabled", "budget_tokens": 10},
    }
    chat, _ = messages_in.to_chat(body)
    assert [t["function"]["name"] for t in chat["tools"]] == ["f"]
    assert chat["tool_choice"] == "required" and chat["parallel_tool_calls"] is False
    assert chat["stop"] == ["a", "b", "c", "d"]
    assert "top_k" not in chat and "thinking" not in chat
    body["tool_choice"] = {"type": "tool", "name": "f"}
    chat, _ = messages_in.to_chat(body)
    assert chat["tool_choice"] == {"type": "function", "function": {"name": "f"}}


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"model": "m", "max_tokens": 1}, "messages"),
        ({"model": "m", "messages": [{"role": "tool", "content": "x"}]}, "messages.0.role"),
        ({"model": "m", "messages": [{"role": "user", "content": 3}]}, "messages.0"),
        ({"messages": [{"role": "user", "content": "x"}]}, "model"),
    ],
)
def test_bad_anthropic_requests_are_refused(body: dict[str, object], needle: str) -> None:
    with pytest.raises(BridgeError) as caught:
        messages_in.to_chat(body)
    assert caught.value.status == 400 and needle in caught.value.message


def test_a_tool_search_result_names_the_tools_it_found_and_deferred_tools_are_sent() -> None:
    """Claude Code's tool search answers with ``tool_reference`` blocks: the chat upstream must
    read which tools were found (an empty tool message before), and gets the deferred tools
    among its functions, since chat cannot defer one."""
    body = {
        "model": "m",
        "max_tokens": 10,
        "tools": [
            {"name": "ToolSearch", "input_schema": {"type": "object"}},
            {"name": "mcp__db__query", "input_schema": {"type": "object"}, "defer_loading": True},
        ],
        "messages": [
            {"role": "user", "content": "query the db"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "s1", "name": "ToolSearch", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "s1",
                        "content": [{"type": "tool_reference", "tool_name": "mcp__db__query"}],
                    }
                ],
            },
        ],
    }
    chat, _ = messages_in.to_chat(body)
    tool_message = chat["messages"][-1]
    assert tool_message["role"] == "tool" and "mcp__db__query" in tool_message["content"]
    assert [t["function"]["name"] for t in chat["tools"]] == ["ToolSearch", "mcp__db__query"]

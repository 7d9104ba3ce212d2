"""Bridge reply translation: chat replies (recorded and documented shapes) rendered as
Responses and Anthropic Messages, whole and streamed; upstream errors; SSE decoding."""

from __future__ import annotations

import json
from typing import Any

import pytest

from judgeaudit.bridge import errors, messages_in, messages_out, responses_in, responses_out
from judgeaudit.bridge.chat import ChatStreamReader, parse_completion
from judgeaudit.bridge.errors import BridgeError
from judgeaudit.bridge.sse import SSEDecoder
from tests.bridge_helpers import chat_chunks, events, fixture

CODEX = fixture("codex_tool_round_trip.json")


def _stream(writer: Any, chunks: list[dict[str, Any]]) -> bytes:
    reader = ChatStreamReader()
    raw = writer.start()
    for chunk in chunks:
        for delta in reader.feed(chunk):
            raw += writer.delta(delta)
    return bytes(raw + writer.finish(reader.finish()))


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "c1",
        "model": "up",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def test_recorded_tool_call_stream_as_responses_events() -> None:
    _, context = responses_in.to_chat(CODEX)
    out = events(
        _stream(
            responses_out.ResponsesStream(context), chat_chunks("sim_chat_stream_tool_call.sse")
        )
    )
    kinds = [name for name, _ in out]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert kinds.index("response.output_item.added") < kinds.index("response.output_item.done")
    assert [data["sequence_number"] for _, data in out] == list(range(len(out)))
    final = out[-1][1]["response"]
    (item,) = final["output"]
    assert item["type"] == "function_call" and item["name"] == "exec_command"
    assert json.loads(item["arguments"]) == {"cmd": "cat note.txt"}
    assert item["call_id"] == "call_784e9121915917026c3b"
    assert final["usage"]["input_tokens"] == 15 and final["usage"]["output_tokens"] == 9
    assert final["status"] == "completed" and final["model"] == "sim-chat"


def test_recorded_tool_call_stream_as_anthropic_events() -> None:
    context = messages_in.MessagesContext(model="sim-chat")
    out = events(
        _stream(messages_out.MessagesStream(context), chat_chunks("sim_chat_stream_tool_call.sse"))
    )
    kinds = [name for name, _ in out]
    assert kinds == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = out[1][1]["content_block"]
    assert start["type"] == "tool_use" and start["name"] == "exec_command"
    assert start["id"] == "call_784e9121915917026c3b"
    assert json.loads(out[2][1]["delta"]["partial_json"]) == {"cmd": "cat note.txt"}
    assert out[4][1]["delta"]["stop_reason"] == "tool_use"
    assert out[4][1]["usage"]["output_tokens"] == 9


def _deepseek_like() -> list[dict[str, Any]]:
    """Reasoning first, then text, then usage in a last chunk without choices."""
    return [
        _chunk({"role": "assistant", "content": None, "reasoning_content": "Let me "}),
        _chunk({"reasoning_content": "think."}),
        _chunk({"content": "Hello"}),
        _chunk({"content": " world"}),
        _chunk({}, "stop"),
        {
            "id": "c1",
            "choices": [],
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": 4,
                "prompt_tokens_details": {"cached_tokens": 6},
                "completion_tokens_details": {"reasoning_tokens": 2},
            },
        },
    ]


def test_reasoning_and_text_stream_as_responses_items() -> None:
    context = responses_in.ResponsesContext(model="m")
    out = events(_stream(responses_out.ResponsesStream(context), _deepseek_like()))
    text = "".join(d["delta"] for n, d in out if n == "response.output_text.delta")
    thought = "".join(d["delta"] for n, d in out if n == "response.reasoning_summary_text.delta")
    assert (text, thought) == ("Hello world", "Let me think.")
    final = out[-1][1]["response"]
    assert [i["type"] for i in final["output"]] == ["reasoning", "message"]
    assert final["output"][0]["summary"] == [{"type": "summary_text", "text": "Let me think."}]
    assert final["output"][1]["content"][0]["text"] == "Hello world"
    assert final["usage"]["input_tokens_details"]["cached_tokens"] == 6
    assert final["usage"]["output_tokens_details"]["reasoning_tokens"] == 2
    # Every delta names the item that was added before it.
    added = {d["item"]["id"] for n, d in out if n == "response.output_item.added"}
    assert {d["item_id"] for n, d in out if n is not None and n.endswith(".delta")} <= added


def test_reasoning_and_text_stream_as_anthropic_blocks() -> None:
    context = messages_in.MessagesContext(model="m")
    out = events(_stream(messages_out.MessagesStream(context), _deepseek_like()))
    starts = [d["content_block"]["type"] for n, d in out if n == "content_block_start"]
    assert starts == ["thinking", "text"]
    text = "".join(d["delta"].get("text", "") for n, d in out if n == "content_block_delta")
    assert text == "Hello world"
    delta = next(d for n, d in out if n == "message_delta")
    assert delta["delta"]["stop_reason"] == "end_turn"
    assert delta["usage"] == {
        "input_tokens": 4,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 6,
        "output_tokens": 4,
    }
    # Blocks open and close in order, indexes count up from 0.
    indexes = [d["index"] for n, d in out if n == "content_block_stop"]
    assert indexes == [0, 1]


def test_interleaved_tool_call_fragments_are_assembled() -> None:
    chunks = [
        _chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x"'}}
                ]
            }
        ),
        _chunk(
            {
                "tool_calls": [
                    {"index": 1, "id": "b", "function": {"name": "g", "arguments": '{"y": '}}
                ]
            }
        ),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}),
        _chunk({"tool_calls": [{"index": 1, "function": {"arguments": "2}"}}]}),
        _chunk({}, "tool_calls"),
    ]
    reader = ChatStreamReader()
    for chunk in chunks:
        reader.feed(chunk)
    outcome = reader.finish()
    assert [(c.id, c.name, json.loads(c.arguments)) for c in outcome.tool_calls] == [
        ("a", "f", {"x": 1}),
        ("b", "g", {"y": 2}),
    ]


def test_whole_replies_map_finish_reasons() -> None:
    body: dict[str, Any] = {
        "id": "x",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "cut"},
                "finish_reason": "length",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 5},
    }
    outcome = parse_completion(body)
    rendered = responses_out.render(outcome, responses_in.ResponsesContext(model="m"))
    assert rendered["status"] == "incomplete"
    assert rendered["incomplete_details"] == {"reason": "max_output_tokens"}
    anthropic = messages_out.render(outcome, messages_in.MessagesContext(model="m"))
    assert anthropic["stop_reason"] == "max_tokens"
    assert anthropic["content"] == [{"type": "text", "text": "cut"}]
    assert anthropic["usage"]["output_tokens"] == 5
    body["choices"][0]["finish_reason"] = "content_filter"
    assert (
        messages_out.render(parse_completion(body), messages_in.MessagesContext("m"))["stop_reason"]
        == "refusal"
    )


def test_a_length_stop_ends_the_responses_stream_as_incomplete() -> None:
    context = responses_in.ResponsesContext(model="m")
    out = events(
        _stream(
            responses_out.ResponsesStream(context),
            [_chunk({"content": "ab"}), _chunk({}, "length")],
        )
    )
    assert out[-1][0] == "response.incomplete"
    assert out[-1][1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}


def test_namespaced_and_custom_tool_calls_go_back_under_their_own_names() -> None:
    body = {
        "model": "m",
        "input": "x",
        "tools": [
            {"type": "namespace", "name": "crm", "tools": [{"type": "function", "name": "lookup"}]},
            {"type": "custom", "name": "apply_patch"},
        ],
    }
    _, context = responses_in.to_chat(body)
    completion = {
        "choices": [
            {
                "message": {
                    "tool_calls": [
                        {"id": "1", "function": {"name": "crm__lookup", "arguments": "{}"}},
                        {
                            "id": "2",
                            "function": {
                                "name": "apply_patch",
                                "arguments": '{"input": "*** Begin"}',
                            },
                        },
                    ]
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    output = responses_out.render(parse_completion(completion), context)["output"]
    assert output[0]["type"] == "function_call"
    assert (output[0]["name"], output[0]["namespace"]) == ("lookup", "crm")
    assert output[1] == {
        "type": "custom_tool_call",
        "id": "ctc_2",
        "status": "completed",
        "call_id": "2",
        "name": "apply_patch",
        "input": "*** Begin",
    }


def test_tool_arguments_that_are_not_json_reach_claude_code_as_an_object() -> None:
    completion = {
        "choices": [
            {
                "message": {
                    "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": "{oops"}}]
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    rendered = messages_out.render(parse_completion(completion), messages_in.MessagesContext("m"))
    assert rendered["content"] == [
        {"type": "tool_use", "id": "1", "name": "f", "input": {"_raw_arguments": "{oops"}}
    ]


def test_failures_mid_stream_end_each_stream_in_its_own_way() -> None:
    error = BridgeError(502, "the upstream stream ended before the reply finished")
    writer = responses_out.ResponsesStream(responses_in.ResponsesContext(model="m"))
    raw = writer.start() + writer.delta(ChatStreamReader().feed(_chunk({"content": "par"}))[0])
    out = events(raw + writer.fail(error))
    assert out[-1][0] == "response.failed"
    assert out[-1][1]["response"]["error"]["message"] == error.message
    assert out[-2][0] == "response.output_item.done"  # the partial text is closed first
    anthropic = events(messages_out.MessagesStream(messages_in.MessagesContext("m")).fail(error))
    assert anthropic == [
        ("error", {"type": "error", "error": {"type": "api_error", "message": error.message}})
    ]


def test_upstream_429_keeps_status_message_and_retry_after() -> None:
    raw = json.dumps(
        {
            "error": {
                "message": "Rate limit reached for sk-secret-key-1234",
                "type": "requests",
                "code": "rate_limit_exceeded",
            }
        }
    ).encode()
    error = errors.from_upstream(
        429,
        raw,
        {"Retry-After": "7", "retry-after-ms": "7000", "X-Other": "1"},
        ("sk-secret-key-1234",),
    )
    assert error.status == 429
    assert error.headers == {"Retry-After": "7", "retry-after-ms": "7000"}
    assert "sk-secret-key-1234" not in error.message and "[key]" in error.message
    assert errors.anthropic_body(error)["error"]["type"] == "rate_limit_error"
    body = errors.openai_body(error)["error"]
    assert (body["type"], body["code"]) == ("requests", "rate_limit_exceeded")
    assert body["message"].startswith("upstream HTTP 429: Rate limit reached")


@pytest.mark.parametrize(
    ("status", "raw", "needle", "anthropic_type"),
    [
        (401, b'{"error": "invalid token"}', "invalid token", "authentication_error"),
        (404, b'{"message": "no such model"}', "no such model", "not_found_error"),
        (502, b"<html><body>Bad   Gateway</body></html>", "<html><body>Bad Gateway", "api_error"),
        (503, b"", "no error message", "overloaded_error"),
    ],
)
def test_upstream_error_bodies_of_any_shape(
    status: int, raw: bytes, needle: str, anthropic_type: str
) -> None:
    error = errors.from_upstream(status, raw, {}, ())
    assert error.status == status and needle in error.message
    assert errors.anthropic_body(error)["error"]["type"] == anthropic_type
    assert errors.openai_body(error)["error"]["message"] == error.message


def test_sse_decoder_handles_split_reads_crlf_comments_and_multiline_data() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b': keep-alive\r\n\r\ndata: {"a"') == []
    assert decoder.feed(b": 1}\r\n\r\ndata: x\ndata: y\n") == ['{"a": 1}']
    assert decoder.feed(b"\n") == ["x\ny"]
    assert decoder.feed(b"data: [DONE]") == []
    assert decoder.close() == ["[DONE]"]

"""Stored events → OpenAI messages, and the TRL / OpenAI preference shapes (hand-built cases)."""

from __future__ import annotations

from typing import Any

from judgeaudit.analysis.pref_messages import openai_shape, to_messages, trl_shape


def call(i: int, name: str, args: str) -> dict[str, object]:
    return {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": args}}


def test_parallel_calls_text_with_calls_and_results_by_tool() -> None:
    events: list[dict[str, Any]] = [
        {"role": "user", "content": "退货"},
        {"role": "agent", "content": "查一下。"},
        {"role": "tool_call", "name": "get", "arguments": {"id": "订单-1"}},  # an object
        {"role": "tool_call", "name": "calc", "arguments": "1+1"},
        {"role": "tool_result", "name": "calc", "result": 2},
        {"role": "tool_result", "name": "get", "result": {"状态": "已送达"}},
        {"role": "tool_result", "name": "other", "result": "orphan"},
        {"role": "agent", "content": "好了"},
    ]
    assert to_messages(events, "政策") == [
        {"role": "system", "content": "政策"},
        {"role": "user", "content": "退货"},
        {
            "role": "assistant",
            "content": "查一下。",
            "tool_calls": [call(0, "get", '{"id": "订单-1"}'), call(1, "calc", "1+1")],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "2"},
        {"role": "tool", "tool_call_id": "call_0", "content": '{"状态": "已送达"}'},
        {"role": "tool", "tool_call_id": "call_2", "content": "orphan"},
        {"role": "assistant", "content": "好了"},
    ]


def test_trl_splits_after_the_first_user_message_and_drops_the_sign_off() -> None:
    a = to_messages([{"role": "user", "content": "hi"}, {"role": "agent", "content": "done"},
                     {"role": "user", "content": "ok <finished>"}], "sys")  # fmt: skip
    b = to_messages([{"role": "user", "content": "hi"}, {"role": "agent", "content": "no"}], "sys")
    row, why, dropped = trl_shape(a, b)
    assert why is None and dropped == 1 and row is not None
    assert row["prompt"] == a[:2] and row["chosen"] == [a[2]] and row["rejected"] == [b[2]]
    other = to_messages([{"role": "user", "content": "hello"}], "sys")
    assert trl_shape(a, other)[1] == "prompt_differs"


def test_openai_holds_only_pairs_that_differ_in_the_last_assistant_message() -> None:
    start = [{"role": "user", "content": "hi"}, {"role": "agent", "content": "which order?"},
             {"role": "user", "content": "O-1"}]  # fmt: skip
    a = to_messages([*start, {"role": "agent", "content": "refunded $5"}], None)
    b = to_messages([*start, {"role": "agent", "content": "all done!"},
                     {"role": "user", "content": "thanks"}], None)  # fmt: skip
    row, why = openai_shape(a, b, None)
    assert why is None and row is not None
    assert row["input"] == {"messages": a[:3]}
    assert row["preferred_output"] == [a[3]] and row["non_preferred_output"] == [b[3]]
    early = to_messages([start[0], {"role": "agent", "content": "no"}, *start[2:], start[1]], None)
    assert openai_shape(a, early, None) == (None, "diverge_before_last_assistant_turn")
    assert openai_shape(a, a, None) == (None, "identical_outputs")

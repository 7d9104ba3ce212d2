"""The real openai SDK and our llm layer against the real embedded server on loopback.

Every ``LLMClient`` test runs on both transports (``transport``: the openai SDK and the direct
aiohttp path): the same calls, faults, retries, timeouts and errors must come out the same."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Coroutine
from typing import Any, TypeVar

import openai
import pytest

from judgeaudit.llm import CallResult, LLMClient, LLMError
from judgeaudit.llm.client import RetryPolicy
from tests.helpers import sim_server

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": name,
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
        },
    }
    for name in ("get_order", "refund_item")
]
T = TypeVar("T")

REFUND: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a retail support agent."},
    {"role": "user", "content": "I'd like a refund for item SKU-104 in order O-1007."},
]


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def fast_retry(n: int = 4) -> RetryPolicy:
    return RetryPolicy(max_attempts=n, base_s=0.01, max_s=0.05)


def make_client(url: str, key: str, transport: str, **options: Any) -> LLMClient:
    """An LLMClient forced onto ``transport`` (the test fails if it is not on it)."""
    client = LLMClient(url, key, fast_path=transport == "direct", **options)
    assert client.path == transport
    return client


def test_tool_call_round_trip(sim_url: str, transport: str) -> None:
    async def go() -> tuple[CallResult, CallResult]:
        client = make_client(sim_url, "k", transport)
        first = await client.chat("agent:skill=1", REFUND, tools=TOOLS, seed=1)
        call = first.tool_calls[0]
        follow: list[dict[str, Any]] = [
            *REFUND,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": call["name"], "arguments": call["arguments"]},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": call["id"],
                "content": json.dumps({"order_id": "O-1007", "status": "delivered", "items": []}),
            },
        ]
        second = await client.chat("agent:skill=1", follow, tools=TOOLS, seed=1)
        await client.aclose()
        return first, second

    first, second = run(go())
    assert first.finish_reason == "tool_calls"
    assert first.tool_calls[0]["name"] == "get_order"
    assert json.loads(first.tool_calls[0]["arguments"]) == {"order_id": "O-1007"}
    # Having seen the order, a skilled agent asks for confirmation before writing.
    assert "Shall I proceed?" in second.text
    assert first.prompt_tokens > 0 and first.completion_tokens > 0


def test_streaming_matches_non_streaming(sim_url: str, transport: str) -> None:
    async def go() -> tuple[CallResult, CallResult, CallResult, CallResult]:
        client = make_client(sim_url, "k", transport)
        plain = await client.chat("sim-chat", [{"role": "user", "content": "stream me"}])
        streamed = await client.chat(
            "sim-chat", [{"role": "user", "content": "stream me"}], stream=True
        )
        tool_plain = await client.chat("agent:skill=1", REFUND, tools=TOOLS, seed=3)
        tool_streamed = await client.chat("agent:skill=1", REFUND, tools=TOOLS, seed=3, stream=True)
        await client.aclose()
        return plain, streamed, tool_plain, tool_streamed

    plain, streamed, tool_plain, tool_streamed = run(go())
    assert streamed.text == plain.text and "stream me" in plain.text
    assert streamed.completion_tokens == plain.completion_tokens
    assert tool_streamed.tool_calls == tool_plain.tool_calls


def test_same_request_same_bytes(sim_url: str) -> None:
    async def go() -> list[bytes]:
        sdk = openai.AsyncOpenAI(base_url=sim_url, api_key="k", max_retries=0)
        out = []
        for _ in range(2):
            raw = await sdk.chat.completions.with_raw_response.create(
                model="judge-default",
                messages=[
                    {
                        "role": "user",
                        "content": "<task>x</task><trajectory_A>agent: done</trajectory_A><trajectory_B>agent: hi</trajectory_B>",
                    }
                ],
                seed=11,
            )
            out.append(raw.http_response.content)
        other = await sdk.chat.completions.with_raw_response.create(
            model="judge-default",
            messages=[
                {
                    "role": "user",
                    "content": "<task>x</task><trajectory_A>agent: done</trajectory_A><trajectory_B>agent: hi</trajectory_B>",
                }
            ],
            seed=12,
        )
        out.append(other.http_response.content)
        await sdk.close()
        return out

    first, second, other_seed = run(go())
    assert first == second
    assert (
        json.loads(first)["choices"][0]["message"]["content"]
        != json.loads(other_seed)["choices"][0]["message"]["content"]
        or first != other_seed
    )


@pytest.mark.parametrize("fault", ["429", "500", "503", "truncate", "empty"])
def test_fault_is_retried_then_succeeds(sim_url: str, fault: str, transport: str) -> None:
    async def go() -> list[int]:
        client = make_client(sim_url, "k", transport, retry=fast_retry(12))
        model = f"chat:rate_{fault}=0.5,retry_after_s=0.01"
        # The server draws faults per (request, attempt): requests of their own per transport,
        # so that neither run depends on how many attempts the other one used up.
        results = [
            await client.chat(
                model, [{"role": "user", "content": f"q{i} {transport}"}], stream=i % 2 == 1
            )
            for i in range(12)
        ]
        await client.aclose()
        return [r.attempts for r in results]

    attempts = run(go())
    assert all(a >= 1 for a in attempts)
    assert max(attempts) > 1, "with a 50% fault rate some call must have needed a retry"


@pytest.mark.parametrize("fault", ["429", "500", "503", "truncate", "empty"])
def test_fault_gives_up_with_clear_message(sim_url: str, fault: str, transport: str) -> None:
    async def go() -> None:
        client = make_client(sim_url, "sk-secret-key-1234", transport, retry=fast_retry(3))
        try:
            await client.chat(
                f"chat:rate_{fault}=1,retry_after_s=0.01", [{"role": "user", "content": "x"}]
            )
        finally:
            await client.aclose()

    with pytest.raises(LLMError) as info:
        run(go())
    message = str(info.value)
    assert info.value.kind == "exhausted"
    assert "gave up after 3 attempts" in message
    assert "sk-secret-key-1234" not in message


def test_hang_hits_timeout_then_retry_succeeds(sim_url: str, transport: str) -> None:
    async def go() -> tuple[int, float]:
        client = make_client(sim_url, "k", transport, timeout_s=0.3, retry=fast_retry(8))
        results = [
            await client.chat(
                "chat:rate_hang=0.5,hang_s=3", [{"role": "user", "content": f"h{i} {transport}"}]
            )
            for i in range(6)
        ]
        await client.aclose()
        return max(r.attempts for r in results), max(r.latency_ms for r in results)

    attempts, _ = run(go())
    assert attempts > 1


def test_retry_after_is_honoured(sim_url: str, transport: str) -> None:
    async def go() -> float:
        client = make_client(
            sim_url, "k", transport, retry=RetryPolicy(max_attempts=2, base_s=0.0, max_s=0.0)
        )
        loop = asyncio.get_running_loop()
        start = loop.time()
        with pytest.raises(LLMError):
            await client.chat(
                "chat:rate_429=1,retry_after_s=0.4", [{"role": "user", "content": "x"}]
            )
        await client.aclose()
        return loop.time() - start

    assert run(go()) >= 0.4


def test_wrong_key_gives_401_without_the_key(transport: str) -> None:
    with sim_server("--require-key-env", "SIM_KEY", env={"SIM_KEY": "right-key-0001"}) as url:

        async def go(key: str) -> str:
            client = make_client(url, key, transport, name="local-sim")
            try:
                result = await client.chat("sim-chat", [{"role": "user", "content": "x"}])
                return result.text
            finally:
                await client.aclose()

        with pytest.raises(LLMError) as info:
            run(go("wrong-key-9999"))
        assert info.value.kind == "auth"
        assert "rejected the API key" in str(info.value)
        assert "wrong-key-9999" not in str(info.value) and "9999" not in str(info.value)
        assert "simulated reply" in run(go("right-key-0001"))

        request = urllib.request.Request(
            url + "/messages",
            data=b'{"model":"m","max_tokens":5,"messages":[]}',
            headers={"x-api-key": "nope", "content-type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as http:
            urllib.request.urlopen(request)
        assert http.value.code == 401
        assert json.loads(http.value.read())["error"]["type"] == "authentication_error"


def _post_stream(url: str, path: str, body: dict[str, object]) -> list[str]:
    request = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request) as response:
        return [line for line in response.read().decode().splitlines() if line.startswith("event:")]


def test_responses_api_stream_ends_completed(sim_url: str) -> None:
    events = _post_stream(
        sim_url, "/responses", {"model": "sim-chat", "input": "hi", "stream": True}
    )
    assert events[0] == "event: response.created"
    assert events[-1] == "event: response.completed"


def test_anthropic_messages_stream_tolerates_beta(sim_url: str) -> None:
    body = {
        "model": "sim-chat",
        "max_tokens": 10,
        "stream": True,
        "messages": [{"role": "user", "content": "hi"}],
    }
    events = _post_stream(sim_url, "/messages?beta=true", body)
    assert events[0] == "event: message_start" and events[-1] == "event: message_stop"


def test_models_and_head(sim_url: str, transport: str) -> None:
    async def go() -> list[str]:
        client = make_client(sim_url, "k", transport)
        ids = await client.list_models()
        await client.aclose()
        return ids

    ids = run(go())
    assert {"agent-ace", "judge-default", "user-default"} <= set(ids)
    head = urllib.request.Request(sim_url.removesuffix("/v1") + "/", method="HEAD")
    with urllib.request.urlopen(head) as response:
        assert response.status == 200


def test_json_mode_returns_json(sim_url: str, transport: str) -> None:
    async def go() -> str:
        client = make_client(sim_url, "k", transport)
        result = await client.chat("sim-chat", [{"role": "user", "content": "x"}], json_mode=True)
        await client.aclose()
        return result.text

    assert json.loads(run(go()))["simulated"] is True


def test_cache_makes_reruns_free(sim_url: str, tmp_path, transport: str) -> None:  # type: ignore[no-untyped-def]
    async def go() -> tuple[bool, bool, str, str]:
        client = make_client(sim_url, "k", transport, cache_path=tmp_path / "cache.db")
        a = await client.chat("sim-chat", [{"role": "user", "content": "cache me"}])
        b = await client.chat("sim-chat", [{"role": "user", "content": "cache me"}])
        await client.aclose()
        return a.cached, b.cached, a.text, b.text

    a_cached, b_cached, a_text, b_text = run(go())
    assert not a_cached and b_cached and a_text == b_text

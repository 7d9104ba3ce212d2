"""The two transports side by side against a real aiohttp server on loopback that answers what a
provider can answer (each HTTP status, bodies that are not completions, error events in a
stream, redirects): the same request bytes and headers go out, and the same result or the same
final error (kind, message, attempts) comes back; the key is never in a message.

The embedded provider cannot answer 403, 409, 422 or 502, or put an error event in a stream,
so this server does; everything the embedded provider can do is in test_sim_openai_sdk.py,
which runs on both transports too."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import pytest
from aiohttp import web

from judgeaudit.llm import LLMClient, LLMError
from judgeaudit.llm.client import RetryPolicy
from tests.helpers import free_port

T = TypeVar("T")
KEY = "sk-test-key-0001-abcdef"
ASK = [{"role": "user", "content": "Bitte prüfen: 价格?"}]  # non-ASCII: the body is UTF-8 JSON
COMPLETION = {
    "id": "c1",
    "object": "chat.completion",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "fine"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9},
}


def error(status: int, message: str) -> web.Response:
    return web.json_response({"error": {"message": message, "type": "x"}}, status=status)


def sse(*events: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def answer(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for event in events:
            await response.write(f"data: {event}\n\n".encode())
        await response.write_eof()
        return response

    return answer


CHUNK = {"choices": [{"index": 0, "delta": {"content": "fi"}, "finish_reason": None}]}
LAST = {"choices": [{"index": 0, "delta": {"content": "ne"}, "finish_reason": "stop"}]}
USAGE = {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 2}}


async def echo_key_400(request: web.Request) -> web.Response:
    """A provider that quotes the request back in its error, key included."""
    return error(400, f"bad request from {request.headers['Authorization']}")


SCENARIOS: dict[str, Callable[[web.Request], Awaitable[web.StreamResponse]]] = {
    "ok": lambda _: asyncio.sleep(0, web.json_response(COMPLETION)),
    "400": echo_key_400,
    "401": lambda _: asyncio.sleep(0, error(401, "bad key")),
    "403": lambda _: asyncio.sleep(0, error(403, "no access")),
    "404": lambda _: asyncio.sleep(0, error(404, "no such model")),
    "409": lambda _: asyncio.sleep(0, error(409, "conflict")),
    "422": lambda _: asyncio.sleep(0, error(422, "unprocessable")),
    "429": lambda _: asyncio.sleep(
        0, web.json_response({}, status=429, headers={"retry-after-ms": "1"})
    ),
    "502": lambda _: asyncio.sleep(0, web.Response(status=502, text="<html>bad gateway</html>")),
    "not-json": lambda _: asyncio.sleep(0, web.Response(text="<html>hello</html>")),
    "no-choices": lambda _: asyncio.sleep(0, web.json_response({"choices": []})),
    "redirect": lambda _: asyncio.sleep(
        0, web.Response(status=307, headers={"Location": "/ok/v1/chat/completions"})
    ),
    "stream-ok": sse(json.dumps(CHUNK), json.dumps(LAST), json.dumps(USAGE), "[DONE]"),
    "stream-error": sse(json.dumps({"error": {"message": f"overloaded; key {KEY}"}})),
    "stream-not-json": sse("{not json"),
    "stream-cut": sse(json.dumps(CHUNK)),  # ends before a finish_reason
}


@dataclass
class Provider:
    url: str
    seen: dict[str, list[tuple[dict[str, str], bytes]]] = field(default_factory=dict)


def with_provider(body: Callable[[Provider], Awaitable[T]]) -> tuple[T, Provider]:
    """Run ``body`` in one event loop with the scripted provider serving on loopback; return
    what it returned and the provider (what it saw)."""

    async def go() -> tuple[T, Provider]:
        provider = Provider("")

        async def handle(request: web.Request) -> web.StreamResponse:
            name = request.match_info["scenario"]
            provider.seen.setdefault(name, []).append((dict(request.headers), await request.read()))
            return await SCENARIOS[name](request)

        async def models(_: web.Request) -> web.Response:
            return web.json_response({"object": "list", "data": [{"id": "m1"}, {"id": "m2"}]})

        app = web.Application()
        app.router.add_post("/{scenario}/v1/chat/completions", handle)
        app.router.add_get("/ok/v1/models", models)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        provider.url = f"http://127.0.0.1:{runner.addresses[0][1]}"
        try:
            return await body(provider), provider
        finally:
            await runner.cleanup()

    return asyncio.run(go())


async def outcome(url: str, transport: str, stream: bool = False) -> tuple[str, str]:
    """(kind or "ok", message or text and usage) of one call on ``transport``."""
    client = LLMClient(
        url,
        KEY,
        name="local",
        fast_path=transport == "direct",
        retry=RetryPolicy(max_attempts=3, base_s=0.0, max_s=0.0),
    )
    assert client.path == transport
    try:
        result = await client.chat("m", ASK, stream=stream)
        return "ok", f"{result.text} {result.prompt_tokens}+{result.completion_tokens}"
    except LLMError as exc:
        return exc.kind, str(exc)
    finally:
        await client.aclose()


EXPECTED = {
    "ok": "ok",
    "400": "request",
    "401": "auth",
    "403": "auth",
    "404": "not_found",
    "409": "exhausted",
    "422": "exhausted",
    "429": "exhausted",
    "502": "exhausted",
    "not-json": "exhausted",
    "no-choices": "exhausted",
    "redirect": "ok",
}
RETRIED = {"429", "502", "not-json", "no-choices"}  # each answered 3 times before giving up


@pytest.mark.parametrize("scenario", sorted(EXPECTED))
def test_both_transports_end_the_same_way(scenario: str) -> None:
    async def both(provider: Provider) -> list[tuple[str, str]]:
        url = f"{provider.url}/{scenario}/v1"
        return [await outcome(url, "sdk"), await outcome(url, "direct")]

    (sdk, direct), provider = with_provider(both)
    assert sdk == direct
    kind, message = direct
    assert kind == EXPECTED[scenario], message
    assert KEY not in message and KEY[-8:] not in message
    requests = len(provider.seen[scenario])
    assert requests == 2 * (3 if scenario in RETRIED else 1), "attempts per transport"
    if scenario == "ok":
        assert message == "fine 7+2"
    if scenario == "400":
        assert message.endswith("(HTTP 400): bad request from Bearer ***")


@pytest.mark.parametrize(
    ("scenario", "kind", "retried"),
    [
        ("stream-ok", "ok", False),
        ("stream-error", "exhausted", False),
        ("stream-not-json", "exhausted", True),
        ("stream-cut", "exhausted", True),
    ],
)
def test_streams_end_the_same_way(scenario: str, kind: str, retried: bool) -> None:
    async def both(provider: Provider) -> list[tuple[str, str]]:
        url = f"{provider.url}/{scenario}/v1"
        return [await outcome(url, "sdk", stream=True), await outcome(url, "direct", stream=True)]

    (sdk, direct), provider = with_provider(both)
    assert sdk == direct
    assert direct[0] == kind, direct[1]
    assert KEY not in direct[1]
    assert len(provider.seen[scenario]) == 2 * (3 if retried else 1)
    if scenario == "stream-ok":
        assert direct[1] == "fine 7+2"
    if scenario == "stream-error":
        assert "error in the reply: overloaded; key ***" in direct[1]


def test_the_same_request_goes_out_on_both() -> None:
    async def both(provider: Provider) -> list[str]:
        return [(await outcome(f"{provider.url}/ok/v1", t))[0] for t in ("sdk", "direct")]

    results, provider = with_provider(both)
    assert results == ["ok", "ok"]
    (sdk_headers, sdk_body), (direct_headers, direct_body) = provider.seen["ok"]
    assert direct_body == sdk_body  # byte for byte: compact UTF-8 JSON
    assert "价格" in direct_body.decode()
    for name in ("Authorization", "Content-Type", "Accept", "Accept-Encoding"):
        assert direct_headers[name] == sdk_headers[name], name
    assert direct_headers["Authorization"] == f"Bearer {KEY}"
    assert sdk_headers["User-Agent"].startswith("judgeaudit/")
    assert direct_headers["User-Agent"].startswith("judgeaudit/")
    assert "(direct;" in direct_headers["User-Agent"] and "(sdk;" in sdk_headers["User-Agent"]


def test_streamed_requests_ask_for_usage_on_both() -> None:
    async def both(provider: Provider) -> list[str]:
        url = f"{provider.url}/stream-ok/v1"
        return [(await outcome(url, t, stream=True))[0] for t in ("sdk", "direct")]

    results, provider = with_provider(both)
    assert results == ["ok", "ok"]
    bodies = [json.loads(body) for _, body in provider.seen["stream-ok"]]
    assert bodies[0] == bodies[1]
    assert bodies[1]["stream"] is True
    assert bodies[1]["stream_options"] == {"include_usage": True}


def test_models_are_listed_the_same_on_both(transport: str) -> None:
    async def models(provider: Provider) -> list[str]:
        client = LLMClient(f"{provider.url}/ok/v1", KEY, fast_path=transport == "direct")
        try:
            return await client.list_models()
        finally:
            await client.aclose()

    assert with_provider(models)[0] == ["m1", "m2"]


def test_nothing_listening_is_retried_then_named_unreachable(transport: str) -> None:
    port = free_port()  # nobody listens there
    client = LLMClient(
        f"http://127.0.0.1:{port}/v1",
        KEY,
        fast_path=transport == "direct",
        retry=RetryPolicy(max_attempts=2, base_s=0.0, max_s=0.0),
    )

    async def call() -> None:
        try:
            await client.chat("m", ASK)
        finally:
            await client.aclose()

    with pytest.raises(LLMError) as info:
        asyncio.run(call())
    assert info.value.kind == "unreachable", "a refused connect is named, not called a timeout"
    assert "connection refused (2 attempts)" in str(info.value)
    assert KEY not in str(info.value)

"""The embedded provider under hostile HTTP: bad bodies get the API's own 400 (never a 500),
count_tokens needs the key like every endpoint, half-open connections are closed, and the
token-bucket rate limit answers 429 with Retry-After above its rate."""

from __future__ import annotations

import json
import selectors
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import sim_server

VALID: dict[str, dict[str, Any]] = {
    "/chat/completions": {"model": "sim-chat", "messages": [{"role": "user", "content": "hi"}]},
    "/responses": {"model": "sim-chat", "input": "hi"},
    "/messages": {
        "model": "sim-chat",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": "hi"}],
    },
    "/messages/count_tokens": {
        "model": "sim-chat",
        "messages": [{"role": "user", "content": "hi"}],
    },
}
CHAT, RESPONSES, MESSAGES, COUNT = VALID


def post(
    url: str, path: str, data: bytes, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, Any], dict[str, str]]:
    request = urllib.request.Request(
        url + path, data=data, headers={"content-type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, _json(response.read()), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, _json(exc.read()), dict(exc.headers)


def _json(raw: bytes) -> dict[str, Any]:
    """A JSON body; a stream (SSE) comes back as {"stream": text}."""
    try:
        value = json.loads(raw)
    except ValueError:
        return {"stream": raw.decode()}
    return value if isinstance(value, dict) else {"value": value}


def error_message(path: str, body: dict[str, Any]) -> str:
    """The message in each API's own error shape (a KeyError here means the wrong shape)."""
    if path.startswith("/messages"):
        assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
        return str(body["error"]["message"])
    assert body["error"]["type"] == "invalid_request_error"
    return str(body["error"]["message"])


def with_field(path: str, key: str, value: object) -> bytes:
    return json.dumps({**VALID[path], key: value}).encode()


# (API path, request body, what the 400 message must mention): the inputs that used to end in
# a 500 (non-UTF-8 bytes, a recursion bomb, a 5,000-digit number, a list item of the wrong type)
# and their neighbours, one row each.
BAD_BODIES = [
    *[(p, b"\xff\xfe{}", "UTF-8") for p in VALID],
    *[(p, b"[" * 100_000 + b"]" * 100_000, "nests too deeply") for p in VALID],
    *[(p, b'{"model": "sim-chat", "seed": ' + b"9" * 5000 + b"}", "JSON") for p in VALID],
    *[(p, b"", "JSON") for p in VALID],
    *[(p, b"{", "JSON") for p in VALID],
    *[(p, b'["a list"]', "object") for p in VALID],
    (CHAT, with_field(CHAT, "messages", ["not an object"]), "messages[0]"),
    (CHAT, with_field(CHAT, "messages", [{"role": 7}]), "messages[0]"),
    (CHAT, with_field(CHAT, "response_format", "json"), "response_format"),
    (CHAT, with_field(CHAT, "tools", "get_order"), "tools"),
    (CHAT, with_field(CHAT, "tools", [None]), "tools[0]"),
    (CHAT, with_field(CHAT, "seed", "7"), "seed"),
    (CHAT, with_field(CHAT, "messages", [{"role": "user", "content": 5}]), "content"),
    (
        CHAT,
        with_field(CHAT, "messages", [{"role": "assistant", "tool_calls": [{"id": "x"}]}]),
        "tool_calls",
    ),
    (RESPONSES, with_field(RESPONSES, "input", [1]), "input[0]"),
    (RESPONSES, with_field(RESPONSES, "input", [{"role": ["user"]}]), "input[0].role"),
    (RESPONSES, with_field(RESPONSES, "tools", ["x"]), "tools"),
    (MESSAGES, with_field(MESSAGES, "messages", ["hi"]), "messages.0"),
    (MESSAGES, with_field(MESSAGES, "messages", [{"role": "user", "content": 3}]), "content"),
    (MESSAGES, with_field(MESSAGES, "tools", [1]), "tools"),
    (COUNT, with_field(COUNT, "messages", [None]), "messages.0"),
    (COUNT, with_field(COUNT, "model", 3), "model"),
]


@pytest.mark.parametrize(
    ("path", "data", "names"),
    [pytest.param(*row, id=f"{row[0]}-{i}-{row[2]}") for i, row in enumerate(BAD_BODIES)],
)
def test_bad_body_is_a_400_in_the_apis_own_shape(
    sim_url: str, path: str, data: bytes, names: str
) -> None:
    status, body, _ = post(sim_url, path, data)
    assert status == 400, body
    assert names in error_message(path, body)


@pytest.mark.parametrize("path", list(VALID))
def test_wrong_content_type_is_still_read_as_json(sim_url: str, path: str) -> None:
    status, _, _ = post(
        sim_url, path, json.dumps(VALID[path]).encode(), {"content-type": "text/plain"}
    )
    assert status == 200


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = [
    "model",
    "messages",
    "tools",
    "tool_choice",
    "response_format",
    "seed",
    "temperature",
    "stream",
    "input",
    "instructions",
    "system",
    "max_tokens",
    "stream_options",
]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    path=st.sampled_from(list(VALID)),
    key=st.sampled_from(FIELDS),
    value=JSON_VALUES,
    inner=st.booleans(),
)
def test_any_json_value_in_any_field_never_gives_a_5xx(
    sim_url: str, path: str, key: str, value: object, inner: bool
) -> None:
    body = json.loads(json.dumps(VALID[path]))
    if inner and isinstance(body.get("messages"), list):
        body["messages"][0][key] = value  # inside a message too
    else:
        body[key] = value
    status, _, _ = post(sim_url, path, json.dumps(body).encode())
    assert status < 500


def test_count_tokens_needs_the_key_like_every_endpoint() -> None:
    with sim_server("--require-key-env", "SIM_KEY", env={"SIM_KEY": "right-key-0001"}) as url:
        data = json.dumps(VALID[COUNT]).encode()
        status, body, _ = post(url, COUNT, data, {"x-api-key": "wrong-key-9999"})
        assert status == 401 and body["error"]["type"] == "authentication_error"
        status, _, _ = post(url, COUNT, data)
        assert status == 401
        status, body, _ = post(url, COUNT, data, {"x-api-key": "right-key-0001"})
        assert status == 200 and body["input_tokens"] > 0


def test_800_half_open_connections_are_closed_and_the_server_keeps_serving() -> None:
    with sim_server("--read-timeout", "1") as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        partial = [
            b"",  # connected, never a byte
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n",  # headers never finished
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{",
        ]
        open_sockets = set()
        for i in range(800):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(partial[i % 3])
            sock.setblocking(False)
            open_sockets.add(sock)
        # While they hang, a real request still gets its answer.
        status, _, _ = post(url, CHAT, json.dumps(VALID[CHAT]).encode())
        assert status == 200
        with selectors.DefaultSelector() as selector:
            for sock in open_sockets:
                selector.register(sock, selectors.EVENT_READ)
            deadline = 120.0  # generous: the server closes them after about 1 s
            started = time.monotonic()
            while open_sockets and time.monotonic() - started < deadline:
                for key, _ in selector.select(timeout=1.0):
                    ready = key.fileobj
                    assert isinstance(ready, socket.socket)
                    sock = ready
                    try:
                        data = sock.recv(65536)  # a 400 for the half-sent body, then EOF
                    except ConnectionResetError:
                        data = b""
                    if not data:
                        selector.unregister(sock)
                        sock.close()
                        open_sockets.discard(sock)
        left = len(open_sockets)
        for sock in open_sockets:
            sock.close()
        assert left == 0, f"{left} of 800 half-open connections were never closed"


def test_token_bucket_answers_429_with_retry_after_above_its_rate(tmp_path: Path) -> None:
    # One token per 1000 s and 3 banked: exactly 3 requests pass, whatever the machine's speed.
    config = tmp_path / "sim.toml"
    config.write_text("[faults]\nrate_limit_rps = 0.001\nrate_limit_burst = 3\n")
    with sim_server(config=config) as url:
        data = json.dumps(VALID[CHAT]).encode()
        results = [post(url, CHAT, data) for _ in range(5)]
    assert [status for status, _, _ in results] == [200, 200, 200, 429, 429]
    _, body, headers = results[3]
    assert body["error"]["type"] == "rate_limit_error"
    assert int(headers["Retry-After"]) >= 900 and int(headers["retry-after-ms"]) >= 900_000


def test_token_bucket_refills_at_its_rate() -> None:
    from judgeaudit.sim.faults import TokenBucket

    now = [0.0]
    bucket = TokenBucket(rate=10, capacity=2, clock=lambda: now[0])
    assert bucket.take() is None and bucket.take() is None
    wait = bucket.take()
    assert wait == pytest.approx(0.1)
    now[0] += 0.05
    assert bucket.take() == pytest.approx(0.05)  # half a token banked: half the wait left
    now[0] += 0.05
    assert bucket.take() is None
    now[0] += 100
    assert [bucket.take() for _ in range(3)][:2] == [None, None]  # never more than capacity
    assert bucket.admitted == 5 and bucket.refused == 3


def test_a_caller_that_hangs_up_ends_its_handler_and_shutdown_does_not_wait_it_out() -> None:
    """A cancelled run's embedded provider must end at once, not sleep out simulated delays
    (a request into a 10-minute hang, then the caller hangs up and the server stops)."""
    import asyncio

    from judgeaudit.sim.modelspec import SimConfig
    from judgeaudit.sim.server import SHUTDOWN_S, start

    async def go() -> float:
        runner, base = await start(SimConfig())
        host, port = base.split("//")[1].split("/")[0].split(":")
        _reader, writer = await asyncio.open_connection(host, int(port))
        body = json.dumps(
            {
                "model": "sim-chat:rate_hang=1,hang_s=600",
                "messages": [{"role": "user", "content": "hi"}],
            }
        ).encode()
        writer.write(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        await asyncio.sleep(0.5)  # the request is in its hang (nothing asserts on this delay)
        writer.close()
        started = time.monotonic()
        await asyncio.wait_for(runner.cleanup(), timeout=120)
        return time.monotonic() - started

    took = asyncio.run(go())
    assert took < SHUTDOWN_S + 30  # far below the 600 s hang it would otherwise sleep out

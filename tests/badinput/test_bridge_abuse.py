"""The bridge under HTTP abuse and in front of a hostile upstream, as a real process whose
address space is capped (``ulimit -v``): every row of the table gets its status in the caller's
own error format (never a 500), lying and idle connections are closed, and a gzip bomb or a
300 MB reply is refused without being held whole."""

from __future__ import annotations

import gzip
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from tests.badinput.bridge_cases import CASES, MESSAGES, BridgeCase
from tests.bridge_helpers import LoopbackServer

KEY = "sk-bridge-abuse-test-key"  # not a real-looking key
MB = 1024 * 1024
#: Address space the bridge may use beyond what it has idle: far less than a 1 GB inflated
#: body or a 300 MB reply held twice (bytes and text), so holding either whole fails the test.
HEADROOM = 400 * MB
IDLE_S = 1.0


def bomb() -> bytes:
    """1 GB of zeros inside a JSON string, gzip-compressed to about 1 MB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [packer.compress(b'{"choices":[{"message":{"content":"')]
    block = b"0" * MB
    out += [packer.compress(block) for _ in range(1024)]
    out.append(packer.compress(b'"}}]}') + packer.flush())
    return b"".join(out)


class HostileUpstream(LoopbackServer):
    """A chat upstream on loopback that answers by model name: no choices, a string choice,
    deep JSON, a 300 MB body (sent in 1 MB writes) or a gzip bomb."""

    def __init__(self) -> None:
        super().__init__()
        self.bomb = bomb()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        model = (await request.json())["model"]
        if model == "no-choices":
            return web.json_response({"id": "x", "object": "chat.completion"})
        if model == "choice-string":
            return web.json_response({"id": "x", "choices": ["hello"]})
        if model == "deep":
            return web.Response(body=b"[" * 50_000 + b"]" * 50_000, content_type="application/json")
        if model == "gzip-bomb":
            return web.Response(
                body=self.bomb,
                headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
            )
        if model == "huge":
            response = web.StreamResponse(headers={"Content-Type": "application/json"})
            await response.prepare(request)
            try:
                await response.write(b'{"choices":[{"message":{"content":"')
                for _ in range(300):
                    await response.write(b"a" * MB)
                await response.write(b'"}}]}')
            except (ConnectionError, RuntimeError):
                pass  # the bridge hung up, as it should
            return response
        choice = {"index": 0, "message": {"role": "assistant", "content": "ok"}}
        return web.json_response({"id": "x", "choices": [{**choice, "finish_reason": "stop"}]})


def vm_size(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize")


class Bridge:
    def __init__(self, url: str, proc: subprocess.Popen[str]) -> None:
        self.url, self.proc = url, proc
        host, port = url.removeprefix("http://").split(":")
        self.addr = (host, int(port))


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bridge]:
    tmp = tmp_path_factory.mktemp("abuse")
    with HostileUpstream() as upstream:
        profiles = tmp / "cfg" / "profiles"
        profiles.mkdir(parents=True)
        (profiles / "hostile.toml").write_text(
            f'name = "hostile"\napp = "codex"\nbase_url = "{upstream.url}"\nmodel = "ok"\n'
            'key_env = "ABUSE_KEY"\n',
            encoding="utf-8",
        )
        env = {**os.environ, "JUDGEAUDIT_CONFIG_DIR": str(tmp / "cfg"), "ABUSE_KEY": KEY}
        args = ["bridge", "hostile", "--idle-timeout", str(IDLE_S), "--quiet"]
        # Measure the idle bridge once, then run the tested one with the cap.
        probe = subprocess.Popen(
            [sys.executable, "-m", "judgeaudit", *args], stdout=subprocess.PIPE, text=True, env=env
        )
        assert probe.stdout is not None
        probe.stdout.readline()
        idle = vm_size(probe.pid)
        probe.send_signal(signal.SIGINT)
        probe.wait(timeout=10)
        probe.stdout.close()
        limit = idle + HEADROOM

        def cap() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        proc = subprocess.Popen(
            [sys.executable, "-m", "judgeaudit", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            preexec_fn=cap,
        )
        assert proc.stdout is not None and proc.stderr is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://"), proc.stderr.read()
        try:
            yield Bridge(url, proc)
            assert proc.poll() is None, "the bridge died"
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
            err = proc.stderr.read()
            proc.stdout.close()
            proc.stderr.close()
            assert "Traceback" not in err and "MemoryError" not in err, err


def raw_request(addr: tuple[str, int], head: bytes, body: bytes, timeout: float = 30) -> bytes:
    """Send one request by hand and read until the server closes (or the reply is whole)."""
    with socket.create_connection(addr, timeout=timeout) as sock:
        sock.sendall(head + body)
        return read_reply(sock)


def read_reply(sock: socket.socket) -> bytes:
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:") and len(rest) >= int(line[15:]):
                return data


def post(bridge: Bridge, path: str, body: bytes, extra: str = "") -> tuple[int, bytes]:
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
    ).encode()
    reply = raw_request(bridge.addr, head, body, timeout=120)
    status = int(reply.split(b" ", 2)[1])
    return status, reply.partition(b"\r\n\r\n")[2]


def error_message(path: str, raw: bytes) -> str:
    body = json.loads(raw)
    if path.startswith("/v1/messages"):
        assert body["type"] == "error", body  # Anthropic's own shape
        return str(body["error"]["message"])
    return str(body["error"]["message"])  # OpenAI's shape


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_each_row_gets_its_status_in_the_callers_format(bridge: Bridge, case: BridgeCase) -> None:
    status, raw = post(bridge, case.path, case.body)
    assert status == case.status, raw[:300]
    assert case.needle in error_message(case.path, raw)
    assert KEY not in raw.decode("utf-8", "replace")


def test_a_good_request_still_passes(bridge: Bridge) -> None:
    body = json.dumps(
        {"model": "ok", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
    )
    status, raw = post(bridge, MESSAGES, body.encode())
    assert status == 200, raw
    assert json.loads(raw)["content"][0]["text"] == "ok"


def test_a_content_length_that_lies_is_answered_and_closed(bridge: Bridge) -> None:
    head = (
        f"POST {MESSAGES} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    ).encode()
    started = time.monotonic()
    with socket.create_connection(bridge.addr, timeout=30) as sock:
        sock.sendall(head + b'{"model":')
        reply = read_reply(sock)
        assert sock.recv(1) == b"", "the connection stayed open"
    assert reply.startswith(b"HTTP/1.1 408"), reply
    assert time.monotonic() - started < 10
    assert "stopped arriving" in error_message(MESSAGES, reply.partition(b"\r\n\r\n")[2])


def test_a_body_over_the_limit_is_refused_before_it_is_read(bridge: Bridge) -> None:
    head = (
        f"POST {MESSAGES} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {200 * MB}\r\n\r\n"
    ).encode()
    reply = raw_request(bridge.addr, head, b"{")
    assert reply.startswith(b"HTTP/1.1 413"), reply
    assert "MB limit" in error_message(MESSAGES, reply.partition(b"\r\n\r\n")[2])


def test_a_gzip_bomb_request_body_is_cut_at_the_limit(bridge: Bridge) -> None:
    body = gzip.compress(b"[" + b" " * (200 * MB) + b"]", 1)
    status, raw = post(bridge, MESSAGES, body, "Content-Encoding: gzip\r\n")
    assert status == 413, raw[:200]
    assert "MB limit" in error_message(MESSAGES, raw)


def test_a_thousand_idle_half_open_connections_are_closed(bridge: Bridge) -> None:
    socks = []
    try:
        for i in range(1000):
            sock = socket.create_connection(bridge.addr, timeout=30)
            if i % 2:
                sock.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\n")  # headers never end
            socks.append(sock)
        deadline = time.monotonic() + 30
        for sock in socks:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            assert sock.recv(1) == b"", "an idle connection was kept open"
    finally:
        for sock in socks:
            sock.close()
    status, _ = post(bridge, MESSAGES, b'{"model":"ok","max_tokens":5,"messages":[]}')
    assert status in (200, 400), "the bridge stopped answering"

"""Test helpers for the bridge: recorded shapes and an SSE reader independent of the bridge's."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from subprocess import PIPE, Popen, TimeoutExpired
from typing import Any

from aiohttp import web

FIXTURES = Path(__file__).parent / "fixtures" / "bridge"


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def events(raw: bytes) -> list[tuple[str | None, Any]]:
    """(event name, parsed data) for each SSE event in a whole body."""
    out: list[tuple[str | None, Any]] = []
    for block in raw.decode("utf-8").replace("\r\n", "\n").split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            text = "\n".join(data)
            out.append((name, text if text == "[DONE]" else json.loads(text)))
    return out


def chat_chunks(name: str) -> list[dict[str, Any]]:
    """The chunk objects of a recorded chat completions stream (``[DONE]`` left out)."""
    raw = (FIXTURES / name).read_bytes()
    return [data for _, data in events(raw) if data != "[DONE]"]


@contextmanager
def served(*args: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, Popen[str]]]:
    """Run ``judgeaudit ARGS`` (a server whose first stdout line is its URL); stop it with SIGINT
    afterwards. Yields the URL and the process (whose output the caller may check)."""
    proc = Popen(
        [sys.executable, "-m", "judgeaudit", *args],
        stdout=PIPE,
        stderr=PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if not line.startswith("http://"):
            raise RuntimeError(
                f"{args[0]} did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}"
            )
        yield line, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except TimeoutExpired:
                proc.kill()
                proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def post(
    url: str, body: dict[str, Any], key: str, timeout: float = 60
) -> tuple[int, dict[str, str], bytes]:
    """POST JSON with a bearer key; (status, headers, raw body), also for error statuses."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def request_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def key_fingerprint(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


class HeldUpstream:
    """A real chat upstream on loopback that holds every request until the test releases it,
    so tests about busy or silent upstreams wait for states, not for clocks."""

    def __init__(self) -> None:
        self.arrived = threading.Semaphore(0)
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._release: asyncio.Event | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    async def _handle(self, request: web.Request) -> web.Response:
        assert self._release is not None
        self.arrived.release()
        await self._release.wait()
        body = {
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "released"},
                    "finish_reason": "stop",
                }
            ]
        }
        return web.json_response(body)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._release = asyncio.Event()
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        runner = web.AppRunner(app, shutdown_timeout=0.1)
        self._loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.url = f"http://127.0.0.1:{runner.addresses[0][1]}/v1"
        self._started.set()
        self._loop.run_forever()
        self._loop.run_until_complete(runner.cleanup())
        self._loop.close()

    def __enter__(self) -> HeldUpstream:
        self._thread.start()
        self._started.wait()
        return self

    def release(self) -> None:
        assert self._release is not None
        self._loop.call_soon_threadsafe(self._release.set)

    def __exit__(self, *exc: object) -> None:
        self.release()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()


class ReasoningUpstream:
    """A real chat upstream on loopback that streams like DeepSeek or Qwen: ``reasoning_content``
    deltas first, then the answer, then usage in a last chunk without choices."""

    THOUGHT = "Weighing the request first."
    ANSWER = "REASONED ANSWER 42"

    def __init__(self) -> None:
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            data = {"id": "r1", "model": body["model"], "choices": [choice]}
            return f"data: {json.dumps(data)}\n\n".encode()

        half = len(self.THOUGHT) // 2
        for part in (
            chunk({"role": "assistant", "reasoning_content": self.THOUGHT[:half]}),
            chunk({"reasoning_content": self.THOUGHT[half:]}),
            chunk({"content": self.ANSWER}),
            chunk({}, "stop"),
        ):
            await response.write(part)
        usage = {"id": "r1", "choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 9}}
        await response.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())
        return response

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._handle)
        runner = web.AppRunner(app, shutdown_timeout=0.1)
        self._loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.url = f"http://127.0.0.1:{runner.addresses[0][1]}/v1"
        self._started.set()
        self._loop.run_forever()
        self._loop.run_until_complete(runner.cleanup())
        self._loop.close()

    def __enter__(self) -> ReasoningUpstream:
        self._thread.start()
        self._started.wait()
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()


class Recorder:
    """A loopback proxy that keeps every request a real client sends (method, path, the
    headers that are not credentials, the JSON body) and forwards it to ``upstream``, streaming
    the answer back: how the fixtures of each tested client release are recorded."""

    DROP = frozenset({"authorization", "x-api-key", "host", "content-length", "cookie"})

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.url = ""
        self.seen: list[dict[str, Any]] = []
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        import aiohttp

        raw = await request.read()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        headers = {k.lower(): v for k, v in request.headers.items()}
        self.seen.append(
            {
                "method": request.method,
                "path": request.path_qs,
                "headers": {k: v for k, v in sorted(headers.items()) if k not in self.DROP},
                "body": body,
            }
        )
        forward = {k: v for k, v in request.headers.items() if k.lower() not in ("host",)}
        forward.pop("Content-Length", None)
        async with (
            aiohttp.ClientSession(auto_decompress=False) as session,
            session.request(
                request.method, self.upstream + request.path_qs, data=raw, headers=forward
            ) as upstream,
        ):
            response = web.StreamResponse(status=upstream.status)
            for key in ("Content-Type", "Content-Encoding"):
                if key in upstream.headers:
                    response.headers[key] = upstream.headers[key]
            await response.prepare(request)
            async for chunk in upstream.content.iter_any():
                await response.write(chunk)
            await response.write_eof()
            return response

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, shutdown_timeout=0.1)
        self._loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.url = f"http://127.0.0.1:{runner.addresses[0][1]}"
        self._started.set()
        self._loop.run_forever()
        self._loop.run_until_complete(runner.cleanup())
        self._loop.close()

    def __enter__(self) -> Recorder:
        self._thread.start()
        self._started.wait()
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()

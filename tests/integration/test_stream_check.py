"""Issue 19 item 8 (`profile test` streams) and the speed test (`profile test --all`).

Against the embedded server: a stream-only gateway in front of it (a real HTTP proxy that
refuses non-streamed requests, as some gateways do) is judged right for Claude, Codex and
bridged profiles; a stream cut half-way (the sim's truncate fault) and a whole-body answer to a
stream request are judged wrong; TTFT p50/p95 match numpy over the stored calls and reflect the
sim's configured latency.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import numpy as np
import pytest
from aiohttp import web

from tests.cli_helpers import add_profile, cli, make_world, world_env
from tests.helpers import sim_server


@pytest.fixture(scope="module")
def sim() -> Iterator[str]:
    with sim_server() as url:
        yield url


def _proxy(upstream: str, stream_only: bool) -> Iterator[str]:
    """A gateway in front of the sim: stream-only refuses whole-body requests (400); the other
    one drops ``stream`` and answers whole bodies even when a stream was asked for."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    box: dict[str, object] = {}

    async def handle(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        if stream_only and not body.get("stream"):
            error = {"error": {"message": "stream must be true", "type": "invalid_request"}}
            return web.json_response(error, status=400)
        if not stream_only:
            body.pop("stream", None)
        url = upstream.removesuffix("/v1") + request.path
        headers = {
            k: v
            for k, v in request.headers.items()
            if k.lower() in ("authorization", "x-api-key", "anthropic-version")
        }
        async with (
            aiohttp.ClientSession() as session,
            session.post(url, json=body, headers=headers) as answer,
        ):
            out = web.StreamResponse(
                status=answer.status, headers={"Content-Type": answer.headers["Content-Type"]}
            )
            await out.prepare(request)
            async for chunk in answer.content.iter_any():
                await out.write(chunk)
            await out.write_eof()
            return out

    async def start() -> None:
        app = web.Application()
        app.router.add_route("POST", "/{tail:.*}", handle)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        box["runner"] = runner
        box["url"] = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/v1"  # type: ignore[union-attr]
        ready.set()

    thread = threading.Thread(target=lambda: (loop.run_until_complete(start()), loop.run_forever()))
    thread.start()
    ready.wait(10)
    try:
        yield str(box["url"])
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {**world_env(make_world(tmp_path)), "GWKEY": "fake-gateway-key"}


def add(env: dict[str, str], name: str, app: str, url: str, model: str, *options: str) -> None:
    flags = [f"--option={o}" for o in options]
    add_profile(env, name, app, url, "--model", model, "--key-env", "GWKEY", *flags)


def test_a_stream_only_gateway_is_judged_right(sim: str, home: dict[str, str]) -> None:
    for url in _proxy(sim, stream_only=True):
        add(home, "so-claude", "claude", url, "sim-chat", "key_mode=env")
        add(home, "so-codex", "codex", url, "sim-chat", "key_mode=env_key")
        add(home, "so-bridged", "codex", url, "sim-chat", "key_mode=env_key", "bridge=chat")
        for name in ("so-claude", "so-codex", "so-bridged"):
            done = cli("profile", "test", name, env=home)
            assert done.returncode == 0, done.stdout + done.stderr
            assert ": ok, streamed, first token in " in done.stdout


def test_a_whole_body_answer_to_a_stream_request_is_not_ok(sim: str, home: dict[str, str]) -> None:
    for url in _proxy(sim, stream_only=False):
        add(home, "nb-codex", "codex", url, "sim-chat", "key_mode=env_key")
        done = cli("profile", "test", "nb-codex", env=home)
        assert done.returncode == 1
        assert "answered a streamed request with a whole body" in done.stdout


def test_a_stream_cut_half_way_is_not_ok(sim: str, home: dict[str, str]) -> None:
    add(home, "cut", "claude", sim, "sim-chat:rate_truncate=1", "key_mode=env")
    done = cli("profile", "test", "cut", env=home)
    assert done.returncode == 1 and "the stream was cut before message_stop" in done.stdout


def test_speed_test_times_every_profile(sim: str, home: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "no-presets").mkdir()
    home["JUDGEAUDIT_PRESETS_DIR"] = str(tmp_path / "no-presets")
    add(home, "fast", "codex", sim, "sim-chat", "key_mode=env_key")
    add(home, "slow", "claude", sim, "sim-chat:latency_ms=300", "key_mode=env")
    add(home, "down", "sdk", "http://127.0.0.1:9/v1", "m")
    done = cli("profile", "test", "--all", "--calls", "4", "--timeout", "5", env=home)
    assert done.returncode == 1  # one profile cannot be reached
    assert "cannot connect to 127.0.0.1:9" in done.stdout
    saved = json.loads((tmp_path / "cfg" / "latency.json").read_text())
    assert set(saved) == {"fast", "slow", "down"} and saved["down"]["ttft_ms"] == []
    slow = saved["slow"]["ttft_ms"]
    assert len(slow) == 4 and min(slow) >= 300  # the sim waits 300 ms before the first byte
    assert max(saved["fast"]["ttft_ms"]) < min(slow)
    for name in ("fast", "slow"):
        values = saved[name]["ttft_ms"]
        p50, p95 = np.percentile(values, [50, 95])
        line = next(x for x in done.stdout.splitlines() if x.startswith(name + " "))
        assert f"{p50:.0f} ms" in line and f"{p95:.0f} ms" in line and " 4/4 " in line

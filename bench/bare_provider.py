"""The least a provider can do, in its own process: the machine's floor for the benchmarks.

``POST /v1/chat/completions`` reads and parses the JSON body, waits the latency its model id
names (``chat:latency_ms=L``, as the embedded provider reads it) and answers one fixed
completion; nothing else. A bare aiohttp client against this server is the best any Python
client and server pair reaches on this machine at this moment: when even that stays below a
target, the machine (its cores, its load) is the ceiling, not the client or the simulation.

Run as ``python bench/bare_provider.py``: prints its base URL, stops when stdin closes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.simproc import SimProcess, server_process

REPLY = json.dumps(
    {
        "id": "chatcmpl-bare",
        "object": "chat.completion",
        "created": 0,
        "model": "bare",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "You said: hello"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 400, "completion_tokens": 5, "total_tokens": 405},
    }
)


async def complete(request: web.Request) -> web.Response:
    body = json.loads(await request.read())
    _, _, latency = str(body["model"]).partition("latency_ms=")
    await asyncio.sleep(float(latency or 0) / 1000)
    return web.Response(text=REPLY, content_type="application/json")


async def serve() -> None:
    app = web.Application()
    app.router.add_post("/v1/chat/completions", complete)
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0, backlog=1024).start()
    print(f"http://127.0.0.1:{runner.addresses[0][1]}/v1", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_reader(0, lambda: None if os.read(0, 4096) else stop.set())
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


@contextmanager
def bare_process() -> Iterator[SimProcess]:
    """The bare provider in a child process, its CPU time readable like the embedded one's."""
    with server_process([sys.executable, __file__], "the bare provider") as bare:
        yield bare


if __name__ == "__main__":
    asyncio.run(serve())

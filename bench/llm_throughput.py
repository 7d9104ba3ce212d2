"""Throughput of the llm layer next to the bare ``openai`` SDK and the limit C/L, in one run.

The embedded provider runs in its own process with a fixed latency L per call; C calls are in
flight at a time, so no client can beat C/L calls/s. For each latency, side by side against the
same server: the bare SDK (``AsyncOpenAI().chat.completions.create`` with its defaults, our own
semaphore for C) and ``LLMClient`` (retries, limits, usage, errors). Printed: achieved calls/s,
ratio to C/L, ratio to the bare SDK, and the CPU per call of the client and of the server (so the
bottleneck shows). Targets: LLMClient >= 0.9 of C/L at C=32, L=100 ms and >= 0.8 at L=20 ms.

Usage: python bench/llm_throughput.py [--c 32] [--latencies 100,20] [--seconds 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import openai
from bench.simproc import SimProcess, sim_process

from judgeaudit.llm import LLMClient

#: A judge-sized request: a system prompt and one user message with two short transcripts.
SYSTEM = "You compare two customer-service conversations and answer in JSON. " * 6
USER = (
    "<task>Refund item SKU-104 in order O-1007.</task>\n"
    + (
        "<trajectory_A>\nuser: I'd like a refund for item SKU-104 in order O-1007.\n"
        "agent: The refund for item SKU-104 in order O-1007 has been issued: $12.00.\n"
        "</trajectory_A>\n<trajectory_B>\nuser: I'd like a refund.\nagent: All done!\n"
        "</trajectory_B>\n"
    )
    * 4
)

Call = Callable[[int], Awaitable[str]]


def messages(i: int) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"{i}\n{USER}"}]


async def bare_sdk(url: str, model: str, c: int) -> tuple[Call, Callable[[], Awaitable[None]]]:
    sdk = openai.AsyncOpenAI(base_url=url, api_key="bench", max_retries=0)
    gate = asyncio.Semaphore(c)

    async def call(i: int) -> str:
        async with gate:
            reply = await sdk.chat.completions.create(model=model, messages=messages(i))  # type: ignore[arg-type]
            return reply.choices[0].message.content or ""

    return call, sdk.close


async def llm_client(url: str, model: str, c: int) -> tuple[Call, Callable[[], Awaitable[None]]]:
    client = LLMClient(url, "bench", concurrency=c)

    async def call(i: int) -> str:
        return (await client.chat(model, messages(i))).text

    return call, client.aclose


async def measure(
    make: Callable[[str, str, int], Awaitable[tuple[Call, Callable[[], Awaitable[None]]]]],
    server: SimProcess,
    latency_ms: float,
    c: int,
    n: int,
) -> tuple[float, float, float]:
    """Calls/s, client CPU ms/call and server CPU ms/call over n calls (after a warm-up)."""
    call, close = await make(server.url, f"chat:latency_ms={latency_ms:g}", c)
    await asyncio.gather(*(call(i) for i in range(c)))
    server0, cpu0, wall0 = server.cpu_s(), time.process_time(), time.perf_counter()
    await asyncio.gather(*(call(i) for i in range(n)))
    wall = time.perf_counter() - wall0
    cpu, server_cpu = time.process_time() - cpu0, server.cpu_s() - server0
    await close()
    return n / wall, cpu / n * 1000, server_cpu / n * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--c", type=int, default=32)
    parser.add_argument("--latencies", default="100,20", help="comma-separated, in ms")
    parser.add_argument("--seconds", type=float, default=4.0, help="ideal duration of each run")
    args = parser.parse_args()
    print(f"concurrency C={args.c}; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with sim_process() as server:
        for latency in (float(x) for x in args.latencies.split(",")):
            limit = args.c / (latency / 1000)
            n = max(args.c * 4, int(limit * args.seconds))
            bare = asyncio.run(measure(bare_sdk, server, latency, args.c, n))
            ours = asyncio.run(measure(llm_client, server, latency, args.c, n))
            print(f"L={latency:g} ms, {n} calls, limit C/L {limit:.0f} calls/s")
            for name, (rate, cpu, server_cpu) in (("bare openai SDK", bare), ("LLMClient", ours)):
                print(
                    f"  {name:<16} {rate:7.1f} calls/s  {rate / limit:4.2f} of C/L  "
                    f"{rate / bare[0]:4.2f}x bare SDK  client CPU {cpu:.2f} ms/call  "
                    f"server CPU {server_cpu:.2f} ms/call"
                )


if __name__ == "__main__":
    main()

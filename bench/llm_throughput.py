"""Throughput of the llm layer next to the bare ``openai`` SDK and the limit C/L, in one run.

The embedded provider runs in its own process with a fixed latency L per call; C calls are in
flight at a time, so no client can beat C/L calls/s. For each latency, side by side against the
same server, in round-robin order (so a change in the machine's load hits all of them alike):

- the bare SDK (``AsyncOpenAI().chat.completions.create`` with its defaults, our own semaphore
  for C): what a hand-written script gets;
- ``LLMClient`` on its SDK path (``fast_path=False``: what a remote endpoint gets) and on its
  direct path (the default for a loopback or private address), both with retries, limits,
  pacing, usage and errors;
- bare aiohttp (one session, ``json.loads``, nothing else): the floor any Python client on this
  event loop can reach, so the gap left is the client's own work or the machine's;
- bare aiohttp against the bare provider (:mod:`bench.bare_provider`: parse, sleep L, one fixed
  reply) in its own process: the machine's floor. No Python client and server pair does better
  on these cores at this load, so when it stays below a target the machine is the ceiling.

Each method runs C workers that make their calls one after another, as the audit's worker pool
does. Printed: the load average, achieved calls/s (median over the rounds), ratio to C/L, ratio
to the bare SDK, the CPU per call of the client and of the server (so the bottleneck shows), and
per latency the target next to LLMClient's ratio and the machine's floor.
Targets: LLMClient >= 0.9 of C/L at C=32, L=100 ms and >= 0.8 at L=20 ms.

Usage: python bench/llm_throughput.py [--c 32] [--latencies 100,20] [--seconds 4] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp
import openai
from bench.bare_provider import bare_process
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


async def llm_sdk_path(url: str, model: str, c: int) -> tuple[Call, Callable[[], Awaitable[None]]]:
    client = LLMClient(url, "bench", concurrency=c, fast_path=False)
    assert client.path == "sdk"

    async def call(i: int) -> str:
        return (await client.chat(model, messages(i))).text

    return call, client.aclose


async def llm_direct(url: str, model: str, c: int) -> tuple[Call, Callable[[], Awaitable[None]]]:
    client = LLMClient(url, "bench", concurrency=c)
    assert client.path == "direct"

    async def call(i: int) -> str:
        return (await client.chat(model, messages(i))).text

    return call, client.aclose


async def bare_aiohttp(url: str, model: str, c: int) -> tuple[Call, Callable[[], Awaitable[None]]]:
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=c),
        headers={"Authorization": "Bearer bench", "Content-Type": "application/json"},
    )
    gate = asyncio.Semaphore(c)
    target = url + "/chat/completions"

    async def call(i: int) -> str:
        async with gate:
            body = json.dumps({"model": model, "messages": messages(i)}).encode()
            async with session.post(target, data=body) as response:
                reply = json.loads(await response.read())
            return str(reply["choices"][0]["message"]["content"])

    return call, session.close


METHODS = {
    "bare openai SDK": bare_sdk,
    "LLMClient sdk": llm_sdk_path,
    "LLMClient direct": llm_direct,
    "bare aiohttp": bare_aiohttp,
}
FLOOR = "machine floor"  # bare aiohttp against the bare provider
TARGETS = {100.0: 0.9, 20.0: 0.8}


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
    todo = iter(range(n))

    async def worker() -> None:
        for i in todo:
            await call(i)

    server0, cpu0, wall0 = server.cpu_s(), time.process_time(), time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(c)))
    wall = time.perf_counter() - wall0
    cpu, server_cpu = time.process_time() - cpu0, server.cpu_s() - server0
    await close()
    return n / wall, cpu / n * 1000, server_cpu / n * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--c", type=int, default=32)
    parser.add_argument("--latencies", default="100,20", help="comma-separated, in ms")
    parser.add_argument("--seconds", type=float, default=4.0, help="ideal duration of each run")
    parser.add_argument("--rounds", type=int, default=1, help="round-robin repeats (median)")
    args = parser.parse_args()
    print(f"concurrency C={args.c}; {args.rounds} round(s) per method, median shown")
    with sim_process() as server, bare_process() as bare_server:
        for latency in (float(x) for x in args.latencies.split(",")):
            limit = args.c / (latency / 1000)
            n = max(args.c * 4, int(limit * args.seconds))
            runs: dict[str, list[tuple[float, float, float]]] = {
                name: [] for name in [*METHODS, FLOOR]
            }
            loads = [os.getloadavg()[0]]
            for _ in range(args.rounds):
                for name, make in METHODS.items():
                    runs[name].append(asyncio.run(measure(make, server, latency, args.c, n)))
                floor_run = measure(bare_aiohttp, bare_server, latency, args.c, n)
                runs[FLOOR].append(asyncio.run(floor_run))
                loads.append(os.getloadavg()[0])
            print(
                f"L={latency:g} ms, {n} calls, limit C/L {limit:.0f} calls/s; load "
                f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores"
            )
            median = {
                name: tuple(statistics.median(r[k] for r in rows) for k in range(3))
                for name, rows in runs.items()
            }
            bare = median["bare openai SDK"][0]
            for name, (rate, cpu, server_cpu) in median.items():
                print(
                    f"  {name:<17} {rate:7.1f} calls/s  {rate / limit:4.2f} of C/L  "
                    f"{rate / bare:4.2f}x bare SDK  client CPU {cpu:.2f} ms/call  "
                    f"server CPU {server_cpu:.2f} ms/call"
                )
            ours, floor = median["LLMClient direct"][0] / limit, median[FLOOR][0] / limit
            target = TARGETS.get(latency)
            verdict = "" if target is None else f"target {target:.2f}: "
            verdict += f"LLMClient {ours:.2f} of C/L, the machine's floor {floor:.2f}"
            verdict += f" (LLMClient reaches {ours / floor:.2f} of the floor)"
            if target is not None and floor < target:
                verdict += "; the floor itself is below the target: the machine is the ceiling"
            print(f"  {verdict}")


if __name__ == "__main__":
    main()

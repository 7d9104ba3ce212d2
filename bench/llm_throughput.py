"""Throughput of the llm layer against the embedded provider in a separate process.

Prints achieved calls/s next to the limit C/L that latency L and concurrency C allow, their
ratio, and client CPU time per call. Usage: python bench/llm_throughput.py [--n 640] [--c 32]
[--latency-ms 100]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers import sim_server

from judgeaudit.llm import LLMClient


async def measure(url: str, n: int, c: int, latency_ms: float) -> tuple[float, float]:
    client = LLMClient(url, "bench", concurrency=c)
    model = f"chat:latency_ms={latency_ms}"
    await client.chat(model, [{"role": "user", "content": "warm-up"}])
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await asyncio.gather(
        *(client.chat(model, [{"role": "user", "content": f"call {i}"}]) for i in range(n))
    )
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    await client.aclose()
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=640)
    parser.add_argument("--c", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    args = parser.parse_args()
    with sim_server() as url:
        wall, cpu = asyncio.run(measure(url, args.n, args.c, args.latency_ms))
    achieved = args.n / wall
    limit = args.c / (args.latency_ms / 1000)
    print(f"calls={args.n} concurrency={args.c} latency={args.latency_ms:.0f}ms")
    print(
        f"achieved {achieved:.1f} calls/s; limit C/L {limit:.1f} calls/s; "
        f"ratio {achieved / limit:.2f}"
    )
    print(f"client CPU {cpu / args.n * 1000:.2f} ms/call")


if __name__ == "__main__":
    main()

"""The embedded provider's CPU per call, this tree's code next to another tree's, in one run.

The server's CPU is what limits the llm layer at small latencies on two cores (goal 6 of issue
23), so this measures only that: one bare aiohttp client (:func:`bench.llm_throughput.
bare_aiohttp`, the judge-sized request of that bench) makes N calls with C in flight to
``judgeaudit sim serve`` started from each source tree, and to the bare provider
(:mod:`bench.bare_provider`, the least a Python server does per call), in round-robin order
so a change in the machine's load hits all of them alike. Printed per server: the median over
the rounds of the server process's CPU (user + system, from ``/proc``) per call, which the
load of other processes inflates far less than wall time, and the load average.

Usage: python bench/sim_server_cpu.py [--against /work/main/src] [--calls 4000] [--c 32]
       [--latency-ms 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bare_provider import bare_process
from bench.llm_throughput import bare_aiohttp, measure
from bench.simproc import SimProcess, server_process

HERE = Path(__file__).resolve().parents[1] / "src"


def sim_from(stack: ExitStack, src: Path) -> SimProcess:
    """``judgeaudit sim serve`` with ``src`` first on the path (its code, this interpreter)."""
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = str(src) + (os.pathsep + env_path if env_path else "")
    try:  # the child is started (and inherits the path) on entering the context
        cmd = [sys.executable, "-m", "judgeaudit", "sim", "serve", "--port", "0"]
        ctx = server_process([*cmd, "--stop-on-stdin-eof"], f"the provider of {src}")
        return stack.enter_context(ctx)
    finally:
        os.environ["PYTHONPATH"] = env_path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", type=Path, help="another tree's src (e.g. /work/main/src)")
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--c", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    trees = {"this tree": HERE} | ({f"{args.against}": args.against} if args.against else {})
    cpu: dict[str, list[float]] = {name: [] for name in [*trees, "bare provider"]}
    loads = [os.getloadavg()[0]]
    with ExitStack() as stack:
        servers = {name: sim_from(stack, src) for name, src in trees.items()}
        servers["bare provider"] = stack.enter_context(bare_process())
        for _ in range(args.rounds):
            for name, server in servers.items():
                run = measure(bare_aiohttp, server, args.latency_ms, args.c, args.calls)
                cpu[name].append(asyncio.run(run)[2] * 1000)
                loads.append(os.getloadavg()[0])
    print(
        f"{args.calls} calls x {args.rounds} rounds, C={args.c}, L={args.latency_ms:g} ms; "
        f"load {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores"
    )
    for name, values in cpu.items():
        spread = ", ".join(f"{v:.0f}" for v in values)
        print(f"  {name:<24} server CPU {statistics.median(values):6.0f} us/call ({spread})")


if __name__ == "__main__":
    main()

"""Audit throughput against the embedded provider, next to the limit and the bare SDK, in one run.

1. Judge-only: N imported pairs, swap on, so each pair needs exactly 2 sequential judge calls of
   latency L; with C pairs in flight the limit is C / (2 L) pairs/s. Side by side against the
   same server process: the audit (store, logs, events, retries) and the bare ``openai`` SDK
   making the same 2 N calls with the same concurrency and nothing else (the best a hand-written
   script gets). Printed: pairs/s, ratio to the limit, ratio to the bare SDK, CPU per call of
   the client and of the server.
2. Peak memory of judge-only runs of 1,000 and 10,000 pairs, each in its own process: bounded
   means the ratio stays near 1 while the pair count grows 10x.

Usage: python bench/audit_throughput.py [--pairs 2000] [--c 32] [--latencies 100,20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import openai
from bench.simproc import SimProcess, sim_process

from judgeaudit.audit.prompts import PROMPTS
from judgeaudit.audit.runner import AuditRunner
from judgeaudit.audit.spec import load_spec

KEY_ENV = "BENCH_SIM_KEY"
TRAJ_A = [
    {"role": "user", "content": "I'd like a refund for item SKU-101 in order O-1001."},
    {
        "role": "agent",
        "content": "The refund for item SKU-101 in order O-1001 has been issued: $12.00.",
    },
]
TRAJ_B = [
    {"role": "user", "content": "I'd like a refund for item SKU-101 in order O-1001."},
    {"role": "agent", "content": "All done: your request has been processed!"},
]


def write_pairs(path: Path, pairs: int) -> None:
    with path.open("w") as handle:
        for i in range(pairs):
            row = {
                "task_id": f"t{i:06d}",
                "task": "Refund item SKU-101 in order O-1001.",
                "agent_a": "x",
                "agent_b": "y",
                "trajectory_a": TRAJ_A,
                "trajectory_b": TRAJ_B,
                "success_a": 1,
                "success_b": i % 2,
            }
            handle.write(json.dumps(row) + "\n")


def write_spec(folder: Path, base_url: str, concurrency: int, latency_ms: float) -> Path:
    endpoint = (
        'base_url = "embedded"'
        if base_url == "embedded"
        else f'base_url = "{base_url}"\nkey_env = "{KEY_ENV}"'
    )
    spec = folder / "spec.toml"
    spec.write_text(
        f'[run]\nname = "bench"\nimported = "pairs.jsonl"\nconcurrency = {concurrency}\n'
        f"[endpoints.sim]\n{endpoint}\nconcurrency = {concurrency}\n"
        f'[judge]\nmodel = "judge-default:latency_ms={latency_ms:g}"\nendpoint = "sim"\n'
    )
    return spec


def audit(spec: Path, out: Path) -> float:
    started = time.perf_counter()
    finished = asyncio.run(AuditRunner(load_spec(spec), out).run())
    assert finished.complete
    return time.perf_counter() - started


async def bare_sdk(url: str, pairs: int, c: int, latency_ms: float) -> float:
    """The same judge calls (both orders, one after the other) with the bare SDK."""
    prompts = PROMPTS["en"]
    sdk = openai.AsyncOpenAI(base_url=url, api_key="bench", max_retries=0)
    gate = asyncio.Semaphore(c)
    model = f"judge-default:latency_ms={latency_ms:g}"
    goal = "Refund item SKU-101 in order O-1001."
    a = "\n".join(f"{e['role']}: {e['content']}" for e in TRAJ_A)
    b = "\n".join(f"{e['role']}: {e['content']}" for e in TRAJ_B)

    async def pair(i: int) -> None:
        async with gate:
            for first, second in ((a, b), (b, a)):
                user = prompts.judge_user.format(goal=f"{goal} ({i})", first=first, second=second)
                await sdk.chat.completions.create(
                    model=model,
                    messages=[
                        {"role": "system", "content": prompts.judge_system},
                        {"role": "user", "content": user},
                    ],
                )

    started = time.perf_counter()
    await asyncio.gather(*(pair(i) for i in range(pairs)))
    wall = time.perf_counter() - started
    await sdk.close()
    return wall


def measure(server: SimProcess, pairs: int, c: int, latency_ms: float) -> dict[str, float]:
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_pairs(folder / "pairs.jsonl", pairs)
        spec = write_spec(folder, server.url, c, latency_ms)
        for name, job in (
            ("bare", lambda: asyncio.run(bare_sdk(server.url, pairs, c, latency_ms))),
            ("audit", lambda: audit(spec, folder / "out")),
        ):
            server0, cpu0 = server.cpu_s(), time.process_time()
            out[name] = job()
            out[f"{name}_cpu"] = (time.process_time() - cpu0) / (2 * pairs) * 1000
            out[f"{name}_server_cpu"] = (server.cpu_s() - server0) / (2 * pairs) * 1000
    return out


def child(pairs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write_pairs(Path(tmp) / "pairs.jsonl", pairs)
        audit(write_spec(Path(tmp), "embedded", 64, 0), Path(tmp) / "out")
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def peak_kib(pairs: int) -> int:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(pairs)],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--c", type=int, default=32)
    parser.add_argument("--latencies", default="100,20", help="comma-separated, in ms")
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-memory part")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    os.environ[KEY_ENV] = "bench-not-a-real-key"
    print(
        f"judge-only audit: {args.pairs} pairs, 2 calls per pair (swap), concurrency "
        f"{args.c}; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    with sim_process() as server:
        for latency in (float(x) for x in args.latencies.split(",")):
            r = measure(server, args.pairs, args.c, latency)
            limit = args.c / (2 * latency / 1000)
            bare = args.pairs / r["bare"]
            print(f"L={latency:g} ms: limit C/(2L) {limit:.0f} pairs/s")
            for name, wall in (("bare openai SDK", r["bare"]), ("judgeaudit audit", r["audit"])):
                key = "bare" if name.startswith("bare") else "audit"
                rate = args.pairs / wall
                print(
                    f"  {name:<17} {rate:7.1f} pairs/s  {rate / limit:4.2f} of the limit  "
                    f"{rate / bare:4.2f}x bare SDK  client CPU {r[key + '_cpu']:.2f} ms/call  "
                    f"server CPU {r[key + '_server_cpu']:.2f} ms/call"
                )
    if not args.no_memory:
        small, large = peak_kib(1000), peak_kib(10000)
        print(
            f"peak RSS: 1,000 pairs {small / 1024:.0f} MiB; 10,000 pairs {large / 1024:.0f} MiB; "
            f"ratio {large / small:.2f} for 10x the pairs"
        )


if __name__ == "__main__":
    main()

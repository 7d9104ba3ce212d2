"""Audit throughput against the embedded provider, next to the limit and the bare SDK, in one run.

1. Judge-only: N imported pairs, swap on, so each pair needs exactly 2 sequential judge calls of
   latency L; with C pairs in flight the limit is C / (2 L) pairs/s. Side by side against the
   same server process, in round-robin order: the bare ``openai`` SDK making the same 2 N calls
   with the same concurrency and nothing else (the best a hand-written script gets), and the
   audit (store, logs, events, retries) on each llm transport: ``fast_path = false`` (the SDK,
   as a remote endpoint gets) and the default for a loopback address (the direct path).
   Printed: the load average, pairs/s (median over the rounds) for the whole run, its ratio to
   the limit and to the bare SDK, CPU per call of the client and of the server, and for the
   audits also the rate of the judging phase alone (the run's set-up, pair import and final
   exports are a fixed cost that the whole-run figure includes), both as a share of the
   machine floor measured in the same round (issue 23 goal 6), and the time outside the
   judging phase (wall: the median run less the median phase; CPU: this process's, the
   median over the rounds).
2. Peak memory of judge-only runs of 1,000 and 10,000 pairs, each in its own process: bounded
   means the ratio stays near 1 while the pair count grows 10x.

Usage: python bench/audit_throughput.py [--pairs 2000] [--c 32] [--latencies 100,20] [--rounds 3]
(``--latencies 20`` measures L = 20 ms alone.)
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp
import openai
from bench.bare_provider import bare_process
from bench.simproc import SimProcess, sim_process

import judgeaudit
from judgeaudit.audit import events as ev
from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner
from judgeaudit.audit.spec.templates import Template, builtin, trajectory_block

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


def write_spec(
    folder: Path, base_url: str, concurrency: int, latency_ms: float, fast_path: bool | None = None
) -> Path:
    endpoint = (
        'base_url = "embedded"'
        if base_url == "embedded"
        else f'base_url = "{base_url}"\nkey_env = "{KEY_ENV}"'
    )
    if fast_path is not None:
        endpoint += f"\nfast_path = {str(fast_path).lower()}"
    spec = folder / f"spec-{fast_path}.toml"
    spec.write_text(
        f'[run]\nname = "bench"\nimported = "pairs.jsonl"\nconcurrency = {concurrency}\n'
        f"[endpoints.sim]\n{endpoint}\nconcurrency = {concurrency}\n"
        f'[judge]\nmodel = "judge-default:latency_ms={latency_ms:g}"\nendpoint = "sim"\n'
    )
    return spec


def audit(spec: Path, out: Path, path: str | None = None) -> tuple[float, float, float]:
    """Seconds for the whole run (set-up, import, judging, exports) and for its judging phase
    alone (from the phase's start to the last pair), as the progress line shows it; and the
    CPU seconds this process spent outside that phase (before its first call, after its last
    pair)."""
    marks: dict[str, float] = {}
    cpu: dict[str, float] = {}
    left = [0]  # pairs of the judging phase not yet done

    def on_event(event: ev.Event) -> None:
        # The process CPU clock is read twice only: during a run one read took ~0.5 ms of the
        # event loop's wall time (2,003 reads, 986 ms, load 5 on 2 cores), and reading it on
        # every pair slowed the very run it measured.
        if isinstance(event, ev.PhaseStarted) and event.phase == "judging":
            marks["judging"], cpu["judging"] = time.perf_counter(), time.process_time()
            left[0] = event.total - event.done
        elif isinstance(event, ev.PairDone):
            marks["last pair"] = time.perf_counter()
            left[0] -= 1
            if left[0] == 0:
                cpu["last pair"] = time.process_time()

    started, cpu_started = time.perf_counter(), time.process_time()
    runner = AuditRunner(load_spec(spec), out, on_event=on_event)
    finished = asyncio.run(runner.run())
    wall, cpu_outside = time.perf_counter() - started, time.process_time() - cpu_started
    assert finished.complete
    if path is not None:  # the transport the run was meant to measure
        assert runner.endpoints is not None and runner.endpoints.clients["sim"].path == path
    cpu_outside -= cpu["last pair"] - cpu["judging"]
    return wall, marks["last pair"] - marks["judging"], cpu_outside


@functools.cache
def judge_template() -> Template:
    """Read once, as the audit reads its judge template once per run."""
    return builtin("judge", "en")


def judge_messages(i: int, order: str) -> list[dict[str, str]]:
    """The messages the audit's judge call for pair i in one order sends."""
    a = "\n".join(f"{e['role']}: {e['content']}" for e in TRAJ_A)
    b = "\n".join(f"{e['role']}: {e['content']}" for e in TRAJ_B)
    first, second = (a, b) if order == "ab" else (b, a)
    return judge_template().messages(
        task=f"Refund item SKU-101 in order O-1001. ({i})",
        trajectory_a=trajectory_block(first, "A"),
        trajectory_b=trajectory_block(second, "B"),
        order=order,
        language="en",
    )


async def bare_pairs(url: str, pairs: int, c: int, latency_ms: float, sdk: bool) -> float:
    """The same judge calls (both orders, one after the other) with nothing around them: the
    bare SDK, or bare aiohttp (one session, ``json.loads``) for the floor of the direct path."""
    model = f"judge-default:latency_ms={latency_ms:g}"
    client = openai.AsyncOpenAI(base_url=url, api_key="bench", max_retries=0)
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=c),
        headers={"Authorization": "Bearer bench", "Content-Type": "application/json"},
    )

    async def call(messages: list[dict[str, str]]) -> None:
        if sdk:
            await client.chat.completions.create(model=model, messages=messages)  # type: ignore[arg-type]
            return
        body = json.dumps({"model": model, "messages": messages}).encode()
        async with session.post(url + "/chat/completions", data=body) as response:
            json.loads(await response.read())

    todo = iter(range(pairs))

    async def worker() -> None:  # C pairs in flight, as the audit's worker pool runs them
        for i in todo:
            for order in ("ab", "ba"):
                await call(judge_messages(i, order))

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(c)))
    wall = time.perf_counter() - started
    await client.close()
    await session.close()
    return wall


ROWS = {
    "bare": "bare openai SDK",
    "sdk": "audit, sdk path",
    "direct": "audit, direct path",
    "aiohttp": "bare aiohttp",
    "floor": "machine floor",
}


def measure(
    server: SimProcess, bare_server: SimProcess, pairs: int, c: int, latency_ms: float
) -> dict[str, float]:
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_pairs(folder / "pairs.jsonl", pairs)
        sdk_spec = write_spec(folder, server.url, c, latency_ms, fast_path=False)
        direct_spec = write_spec(folder, server.url, c, latency_ms)

        def bare(target: SimProcess, sdk: bool) -> tuple[float, float, float]:
            wall = asyncio.run(bare_pairs(target.url, pairs, c, latency_ms, sdk))
            return wall, wall, 0.0

        jobs: list[tuple[str, Callable[[], tuple[float, float, float]], SimProcess]] = [
            ("bare", lambda: bare(server, True), server),
            ("sdk", lambda: audit(sdk_spec, folder / "out-sdk", "sdk"), server),
            ("direct", lambda: audit(direct_spec, folder / "out-direct", "direct"), server),
            ("aiohttp", lambda: bare(server, False), server),
            ("floor", lambda: bare(bare_server, False), bare_server),
        ]
        for name, job, target in jobs:
            server0, cpu0 = target.cpu_s(), time.process_time()
            out[name], out[f"{name}_judging"], out[f"{name}_outside_cpu"] = job()
            out[f"{name}_cpu"] = (time.process_time() - cpu0) / (2 * pairs) * 1000
            out[f"{name}_server_cpu"] = (target.cpu_s() - server0) / (2 * pairs) * 1000
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
    parser.add_argument("--rounds", type=int, default=1, help="repeats (median shown)")
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-memory part")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    os.environ[KEY_ENV] = "bench-not-a-real-key"
    print(
        f"judge-only audit: {args.pairs} pairs, 2 calls per pair (swap), concurrency "
        f"{args.c}; {args.rounds} round(s), median shown; judgeaudit from "
        f"{Path(judgeaudit.__file__).parent}"
    )
    with sim_process() as server, bare_process() as bare_server:
        for latency in (float(x) for x in args.latencies.split(",")):
            loads = [os.getloadavg()[0]]
            rounds = []
            for _ in range(args.rounds):
                rounds.append(measure(server, bare_server, args.pairs, args.c, latency))
                loads.append(os.getloadavg()[0])
            r = {key: statistics.median(x[key] for x in rounds) for key in rounds[0]}
            limit = args.c / (2 * latency / 1000)
            bare = args.pairs / r["bare"]
            print(
                f"L={latency:g} ms: limit C/(2L) {limit:.0f} pairs/s; load "
                f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores"
            )
            floor = args.pairs / r["floor"]
            for key, name in ROWS.items():
                rate, judging = args.pairs / r[key], args.pairs / r[key + "_judging"]
                outside = r[key] - r[key + "_judging"]
                phase = (
                    f"  (judging phase {judging:5.1f} pairs/s = {judging / limit:4.2f}; of the "
                    f"floor: run {rate / floor:4.2f}, judging phase {judging / floor:4.2f}; "
                    f"outside the phase {outside:.2f} s, {r[key + '_outside_cpu']:.2f} s CPU)"
                    if key in ("sdk", "direct")
                    else ""
                )
                print(
                    f"  {name:<18} {rate:7.1f} pairs/s  {rate / limit:4.2f} of the limit  "
                    f"{rate / bare:4.2f}x bare SDK  client CPU {r[key + '_cpu']:.2f} ms/call  "
                    f"server CPU {r[key + '_server_cpu']:.2f} ms/call{phase}"
                )
    if not args.no_memory:
        small, large = peak_kib(1000), peak_kib(10000)
        print(
            f"peak RSS: 1,000 pairs {small / 1024:.0f} MiB; 10,000 pairs {large / 1024:.0f} MiB; "
            f"ratio {large / small:.2f} for 10x the pairs"
        )


if __name__ == "__main__":
    main()

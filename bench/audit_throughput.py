"""Audit throughput against the embedded provider, next to the limit the latency implies.

1. Judge-only: N imported pairs, swap on, so each pair needs exactly 2 sequential judge calls of
   latency L; with C pairs in flight the limit is C / (2 L) pairs/s.
2. Peak memory of judge-only runs of 1,000 and 10,000 pairs, each in its own process: bounded
   means the ratio stays near 1 while the pair count grows 10x.

Usage: python bench/audit_throughput.py [--pairs 2000] [--c 32] [--latency-ms 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgeaudit.audit.runner import AuditRunner
from judgeaudit.audit.spec import load_spec

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


def write_inputs(folder: Path, pairs: int, concurrency: int, latency_ms: float) -> Path:
    with (folder / "pairs.jsonl").open("w") as handle:
        for i in range(pairs):
            handle.write(
                json.dumps(
                    {
                        "task_id": f"t{i:06d}",
                        "task": "Refund item SKU-101 in order O-1001.",
                        "agent_a": "x",
                        "agent_b": "y",
                        "trajectory_a": TRAJ_A,
                        "trajectory_b": TRAJ_B,
                        "success_a": 1,
                        "success_b": i % 2,
                    }
                )
                + "\n"
            )
    spec = folder / "spec.toml"
    spec.write_text(
        f'[run]\nname = "bench"\nimported = "pairs.jsonl"\nconcurrency = {concurrency}\n'
        f'[endpoints.sim]\nbase_url = "embedded"\nconcurrency = {concurrency}\n'
        f'[judge]\nmodel = "judge-default:latency_ms={latency_ms}"\nendpoint = "sim"\n'
    )
    return spec


def run(spec: Path, out: Path) -> float:
    started = time.perf_counter()
    finished = asyncio.run(AuditRunner(load_spec(spec), out).run())
    assert finished.complete
    return time.perf_counter() - started


def child(pairs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        spec = write_inputs(Path(tmp), pairs, 64, 0)
        run(spec, Path(tmp) / "out")
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
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        spec = write_inputs(Path(tmp), args.pairs, args.c, args.latency_ms)
        wall = run(spec, Path(tmp) / "out")
    achieved = args.pairs / wall
    limit = args.c / (2 * args.latency_ms / 1000)
    print(
        f"judge-only: {args.pairs} pairs, concurrency {args.c}, latency {args.latency_ms:.0f} ms, "
        "2 calls per pair"
    )
    print(
        f"achieved {achieved:.1f} pairs/s; limit C/(2L) {limit:.1f} pairs/s; ratio {achieved / limit:.2f}"
    )
    small, large = peak_kib(1000), peak_kib(10000)
    print(
        f"peak RSS: 1,000 pairs {small / 1024:.0f} MiB; 10,000 pairs {large / 1024:.0f} MiB; "
        f"ratio {large / small:.2f} for 10x the pairs"
    )


if __name__ == "__main__":
    main()

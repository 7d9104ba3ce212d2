"""A judge-only audit against a gateway that answers 429 above R requests/s, in one run.

The embedded provider runs in its own process with a real token bucket (``rate_limit_rps = R``,
one second of burst) and a fixed latency; the client could do far more than R (C/L >> R). Side
by side: the same audit (i) with ``rpm = 60 R`` declared on the endpoint and (ii) with nothing
declared (AIMD on 429s). Printed for each: achieved calls/s over the whole run as a share of R,
the share of HTTP attempts answered 429, failed units, and the pacing at the end. Targets: >= 0.9
of R, <= 5% of calls on 429s, no failed unit.

Usage: python bench/rate_limited.py [--rps 40] [--pairs 600] [--c 32] [--latency-ms 50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.audit_throughput import write_pairs
from bench.simproc import sim_process

from judgeaudit.audit import events as ev
from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner

KEY_ENV = "BENCH_SIM_KEY"


def spec_for(folder: Path, url: str, c: int, latency_ms: float, rpm: float | None) -> Path:
    spec = folder / "spec.toml"
    declared = f"rpm = {rpm:g}\n" if rpm else ""
    spec.write_text(
        f'[run]\nname = "limited"\nimported = "pairs.jsonl"\nconcurrency = {c}\n'
        f'[endpoints.gw]\nbase_url = "{url}"\nkey_env = "{KEY_ENV}"\nconcurrency = {c}\n'
        f"{declared}"
        f'[judge]\nmodel = "judge-default:latency_ms={latency_ms:g}"\nendpoint = "gw"\n'
    )
    return spec


def run_once(folder: Path, spec: Path) -> dict[str, Any]:
    pacing: dict[str, Any] = {}

    def watch(event: ev.Event) -> None:
        if isinstance(event, ev.Progress) and event.rate_limits:
            pacing.update(event.rate_limits["gw"])

    started = time.perf_counter()
    runner = AuditRunner(load_spec(spec), folder / "out", on_event=watch)
    finished = asyncio.run(runner.run())
    wall = time.perf_counter() - started
    db = sqlite3.connect(folder / "out" / "audit.db")
    calls, attempts = db.execute("SELECT COUNT(*), SUM(attempts) FROM calls").fetchone()
    db.close()
    return {
        "wall": wall,
        "calls": calls,
        "attempts": attempts,
        "failed": runner.usage.counters.failures,
        "complete": finished.complete,
        "pacing": pacing,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rps", type=float, default=40.0, help="the gateway's limit R")
    parser.add_argument("--pairs", type=int, default=600, help="2 judge calls each")
    parser.add_argument("--c", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    args = parser.parse_args()
    os.environ[KEY_ENV] = "bench-not-a-real-key"
    print(
        f"gateway limit R={args.rps:g} req/s (token bucket, 1 s burst); {args.pairs} pairs = "
        f"{2 * args.pairs} calls; C={args.c}, L={args.latency_ms:g} ms "
        f"(C/L = {args.c / args.latency_ms * 1000:.0f} req/s); load {os.getloadavg()[0]:.1f}"
    )
    for label, rpm in (("declared rpm", args.rps * 60), ("adaptive (none declared)", None)):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            config = folder / "sim.toml"
            config.write_text(f"[faults]\nrate_limit_rps = {args.rps:g}\n")
            write_pairs(folder / "pairs.jsonl", args.pairs)
            with sim_process(config=config) as server:
                result = run_once(
                    folder, spec_for(folder, server.url, args.c, args.latency_ms, rpm)
                )
        rate = result["calls"] / result["wall"]
        refused = (result["attempts"] - result["calls"]) / result["attempts"]
        pacing = result["pacing"]
        print(
            f"  {label:<26} {rate:6.1f} calls/s = {rate / args.rps:4.2f} of R; "
            f"{refused * 100:4.1f}% of {result['attempts']} calls got 429; failed units "
            f"{result['failed']}; complete {result['complete']}; pacing at the end "
            f"{pacing.get('rps')} req/s ({pacing.get('mode')})"
        )


if __name__ == "__main__":
    main()

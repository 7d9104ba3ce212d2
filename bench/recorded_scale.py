"""Recorded-verdict audit at production scale, side by side with one pandas groupby.

Generates N recorded pairs and 2N verdicts (recorded-jsonl), then runs, each as a real process
with its peak RSS measured by the kernel (wait4): ``judgeaudit import recorded-jsonl`` (at N and
at N/10, to show memory does not grow with N), ``judgeaudit run`` with ``[judge] source =
"recorded"``, ``judgeaudit report --format json``, and the baseline: the original snippet's one
``pd.cut`` + ``groupby`` over the same rows (only the two columns it needs, read from the same
database). Prints wall and CPU times, peak memory and the ratios. Not asserted anywhere.

``--report-only OUT`` measures only the report against the groupby on an existing output
directory (one this benchmark's run left), first building what a finishing run now builds (the
report index, the kept verdict counts) if that older run has none, timed, so the report can be
re-measured without redoing an hour of import and run.

Usage: python bench/recorded_scale.py [--pairs 5000000] [--dir DIR] [--report-only OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SNIPPET = """
import sqlite3, sys, time
import pandas as pd
started = time.perf_counter()
db = sqlite3.connect(sys.argv[1])
pairs = pd.read_sql_query("SELECT reward_gap, misselected FROM audit_pairs", db)
pairs["gap_bucket"] = pd.cut(pairs["reward_gap"], bins=[-0.01, 0.2, 0.5, 1.0, 5.0],
                             labels=["近同", "小差", "中差", "大差"])
stats = pairs.groupby("gap_bucket", observed=True)["misselected"].agg(["mean", "count", "sum"])
print(int(stats["count"].sum()))
"""


def generate(path: Path, pairs: int, seed: int = 7) -> None:
    """Pairs over 10,000 tasks and 8 policies; one pair per (task, trial), so labels never clash."""
    rng = random.Random(seed)
    agents = [f"policy-v{i}" for i in range(8)]
    skill = {a: 0.35 + 0.08 * i for i, a in enumerate(agents)}
    with path.open("w", encoding="utf-8") as out:
        for i in range(pairs):
            a, b = rng.sample(agents, 2)
            sa, sb = int(rng.random() < skill[a]), int(rng.random() < skill[b])
            pid = f"p{i}"
            out.write(
                json.dumps(
                    {
                        "pair_id": pid,
                        "task_id": f"t{i % 10000}",
                        "trial": i // 10000,
                        "task_type": ("refund", "billing", "shipping", "account")[i % 4],
                        "agent_a": a,
                        "agent_b": b,
                        "success_a": sa,
                        "success_b": sb,
                    }
                )
                + "\n"
            )
            for order in ("AB", "BA"):
                # A judge that mostly follows success, with position bias and noise.
                lean = (sa - sb) + (0.4 if order == "AB" else -0.4) + rng.gauss(0, 0.8)
                winner = "A" if lean > 0.3 else "B" if lean < -0.3 else "tie"
                out.write(
                    json.dumps(
                        {
                            "pair_id": pid,
                            "order": order,
                            "winner": winner,
                            "score_a": min(5, max(0, round(2.5 + lean, 1))),
                            "score_b": min(5, max(0, round(2.5 - lean, 1))),
                            "judge_model": "rm-judge",
                        }
                    )
                    + "\n"
                )


CPU: dict[str, float] = {}  # log name -> CPU seconds (user + system) of that child


def measured(cmd: list[str], log: Path) -> tuple[float, int, str]:
    """(wall seconds, peak RSS bytes, stdout) of one child process; its CPU goes to CPU."""
    with log.open("w") as stdout, (log.with_suffix(".err")).open("w") as stderr:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {log.with_suffix('.err').read_text()[-2000:]}")
    CPU[log.stem] = usage.ru_utime + usage.ru_stime
    return wall, usage.ru_maxrss * 1024, log.read_text()


def mib(value: int) -> str:
    return f"{value / 2**20:,.0f} MiB"


INDEX = """
import sys
from pathlib import Path
from judgeaudit.audit.store.verdict_counts import keep_verdict_counts
from judgeaudit.audit.store import AuditStore
store = AuditStore(Path(sys.argv[1]))
store.index_for_report()
for (run_id,) in store.db.execute("SELECT run_id FROM runs WHERE status = 'finished'").fetchall():
    keep_verdict_counts(store.db, run_id)
store.close()
"""


def compare_report(out: Path, work: Path, expected: int | None) -> None:
    """The report against the groupby on ``out``, wall and CPU, with the ratios."""
    db = out / "audit.db"
    names = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
        "SELECT name FROM sqlite_master WHERE type = 'index'"
    )
    tables = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'"
    )
    kept = "verdict_counts" in {row[0] for row in tables}
    if "pairs_for_report" not in {row[0] for row in names} or not kept:
        wall, rss, _ = measured([sys.executable, "-c", INDEX, str(db)], work / "index.log")
        print(
            f"report index and verdict counts built on this older run (as a finishing run"
            f" does): {wall:6.1f}s  peak RSS {mib(rss)}"
        )
    report_s, report_rss, text = measured(
        [sys.executable, "-m", "judgeaudit", "report", str(out), "--format", "json"],
        work / "report.log",
    )
    report = json.loads(text)
    base_s, base_rss, count = measured(
        [sys.executable, "-c", SNIPPET, str(db)], work / "snippet.log"
    )
    assert int(count) == report["pairs"] == (expected or report["pairs"]), (count, expected)
    report_cpu, base_cpu = CPU["report"], CPU["snippet"]
    print(
        f"report --format json (SQL aggregation): {report_s:6.1f}s wall {report_cpu:6.1f}s CPU"
        f"  peak RSS {mib(report_rss)}"
    )
    print(
        f"one pandas cut+groupby (2 columns):     {base_s:6.1f}s wall {base_cpu:6.1f}s CPU"
        f"  peak RSS {mib(base_rss)}"
    )
    print(
        f"report / groupby over {report['pairs']:,} pairs: time ratio {report_s / base_s:.2f}"
        f" (aim <= 3), CPU ratio {report_cpu / base_cpu:.2f}, report peak {mib(report_rss)}"
        " (aim <= 1024 MiB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=5_000_000)
    parser.add_argument("--dir", type=Path, help="working directory (default: a temp dir)")
    parser.add_argument("--report-only", type=Path, metavar="OUT", help="an existing run's OUT")
    args = parser.parse_args()
    work = args.dir or Path(tempfile.mkdtemp(prefix="recorded-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.report_only:
        compare_report(args.report_only, work, None)
        return
    py = [sys.executable, "-m", "judgeaudit"]
    small_n = max(args.pairs // 10, 1)
    print(f"working in {work}; {args.pairs:,} pairs, {2 * args.pairs:,} verdicts")
    for n, name in ((small_n, "small"), (args.pairs, "full")):
        source = work / f"{name}.recorded.jsonl"
        if not source.exists():
            started = time.perf_counter()
            generate(source, n)
            print(
                f"generated {n:,} pairs in {time.perf_counter() - started:.0f}s ({mib(source.stat().st_size)})"
            )
    results = {}
    for name in ("small", "full"):
        wall, rss, _ = measured(
            [*py, "import", "recorded-jsonl", str(work / f"{name}.recorded.jsonl"), "--out",
             str(work / f"{name}.pairs.jsonl")],
            work / f"import-{name}.log",
        )  # fmt: skip
        results[name] = (wall, rss)
        print(f"import {name:5}: {wall:7.1f}s  peak RSS {mib(rss)}")
    print(
        f"import memory, {args.pairs:,} vs {small_n:,} pairs: ratio "
        f"{results['full'][1] / results['small'][1]:.2f} (constant memory: about 1)"
    )
    (work / "spec.toml").write_text(
        '[run]\nname = "scale"\nimported = "full.pairs.jsonl"\n[gap]\nsource = "judge"\n'
        '[judge]\nsource = "recorded"\n'
    )
    out = work / "out"
    wall, rss, _ = measured(
        [*py, "run", str(work / "spec.toml"), "--out", str(out), "--events", "jsonl", "--new-run"],
        work / "run.log",
    )
    print(f"run (recorded, no model call): {wall:7.1f}s  peak RSS {mib(rss)}")
    compare_report(out, work, args.pairs)
    parquet = out / "audit_pairs.parquet"
    print(f"parquet export: {parquet} ({mib(parquet.stat().st_size)})")


if __name__ == "__main__":
    main()

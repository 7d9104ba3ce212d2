"""The full JSON report on 1,000,000 synthetic audit_pairs rows in a real audit DB, next to the
original single groupby snippet on the same data, as a ratio, with peak memory.

Usage: python bench/report_scale.py [--rows 1000000]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd

from judgeaudit.analysis.report import ReportOptions, build_report
from judgeaudit.audit.store import AuditStore


def build_db(path: Path, rows: int) -> None:
    store = AuditStore(path)
    manifest = {"settings": {"gap_source": "capability"}, "run_id": "bench"}
    store.create_run("bench", "hash", manifest)
    store.close()
    db = sqlite3.connect(path)
    rng = random.Random(1)
    agents = [f"agent{i}" for i in range(8)]
    caps = {a: rng.random() for a in agents}
    types = ["refund", "order_modification", "multi_turn_confirmation", "tool_failure", "info_only"]

    def row(i: int) -> tuple[object, ...]:
        a, b = rng.sample(agents, 2)
        sa, sb = int(rng.random() < caps[a]), int(rng.random() < caps[b])
        pref_ab, pref_ba = rng.choice("AB"), rng.choice(["A", "B", "tie"])
        pref = pref_ab if pref_ab == pref_ba else "tie"
        missel = int((sa and not sb and pref == "B") or (sb and not sa and pref == "A"))
        score_a, score_b = round(rng.uniform(0, 5), 1), round(rng.uniform(0, 5), 1)
        return (
            f"bench/{i}",
            f"t{i % 5000}",
            a,
            b,
            sa,
            sb,
            pref,
            score_a,
            score_b,
            abs(caps[a] - caps[b]),
            missel,
            "bench",
            types[i % 5],
            0,
            pref_ab,
            pref_ba,
            int(pref_ab == pref_ba),
            "capability",
            rng.randint(0, 1),
            rng.randint(0, 1),
            "state",
            caps[a],
            caps[b],
            "judge-x",
        )

    columns = (
        "pair_id, task_id, agent_a, agent_b, success_a, success_b, judge_pref, judge_score_a, "
        "judge_score_b, reward_gap, misselected, run_id, task_type, trial, pref_ab, pref_ba, "
        "consistent, gap_source, satisfied_a, satisfied_b, success_source, capability_a, "
        "capability_b, judge_model"
    )
    marks = ", ".join("?" * 24)
    with db:
        db.executemany(
            f"INSERT INTO audit_pairs ({columns}) VALUES ({marks})", (row(i) for i in range(rows))
        )
    db.close()


def original_snippet(path: Path) -> pd.DataFrame:
    db = sqlite3.connect(path)
    pairs = pd.read_sql_query("SELECT * FROM audit_pairs", db)
    db.close()
    pairs["gap_bucket"] = pd.cut(
        pairs["reward_gap"],
        bins=[-0.01, 0.2, 0.5, 1.0, 5.0],
        labels=["近同", "小差", "中差", "大差"],
    )
    stats = pairs.groupby("gap_bucket", observed=True)["misselected"].agg(["mean", "count", "sum"])
    return stats.reset_index()


def timed(fn):  # type: ignore[no-untyped-def]
    """Wall time of a clean run, then peak Python heap from a second, traced run."""
    started = time.perf_counter()
    result = fn()
    wall = time.perf_counter() - started
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, wall, peak


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "audit.db"
        started = time.perf_counter()
        build_db(db_path, args.rows)
        print(f"built {args.rows:,} rows in {time.perf_counter() - started:.1f}s")
        _, base_s, base_mem = timed(lambda: original_snippet(db_path))
        report, full_s, full_mem = timed(lambda: build_report(Path(tmp), ReportOptions()))
        json.dumps(report, default=str)
    print(f"original groupby snippet: {base_s:.2f}s, peak {base_mem / 2**20:.0f} MiB (Python heap)")
    print(f"full json report:         {full_s:.2f}s, peak {full_mem / 2**20:.0f} MiB (Python heap)")
    print(f"ratio full/snippet: {full_s / base_s:.2f} (aim <= 3)")


if __name__ == "__main__":
    main()

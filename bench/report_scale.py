"""The full JSON report on 1,000,000 synthetic audit_pairs rows in a real audit DB, next to one
pandas cut+groupby of the same rows, as ratios of wall and CPU time, with each process's peak RSS.

The peer and the measurement are `bench/recorded_scale.py`'s (:func:`compare_report`: the same
two-column snippet, each side in its own child process, RSS from the kernel by wait4, so SQLite's
memory counts; tracemalloc could not see it). The run is finished as a real run finishes (status,
the Parquet copy DuckDB writes, the report index, the verdict counts), and the report is measured
on each engine asked for, side by side: ``auto`` (the default: DuckDB over the Parquet from
200,000 pairs) and ``sqlite`` (audit.db, the report before auto). Each engine is measured
twice: **cold**, the first report on the file (an empty cache: every column of audit.db is
checked before anything reads it), then **warm** (the pass remembered in the cache,
``audit/store/check_memo.py``); both are printed, with a summary. Usage:
python bench/report_scale.py [--rows 1000000] [--engines auto,sqlite]
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recorded_scale import compare_report

import judgeaudit
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
    # in a child: DuckDB's memory here would count in every later child's peak RSS (Linux keeps
    # the forking parent's high-water mark across exec)
    subprocess.run([sys.executable, "-c", FINISH, str(path)], check=True)


#: what a finishing run writes: the status, the Parquet copy, the report index, verdict counts
FINISH = """
import sys
from pathlib import Path
import judgeaudit
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.store.bulk import finish_exports
from judgeaudit.audit.store.parquet_out import PARQUET
store = AuditStore(Path(sys.argv[1]))
store.set_status("bench", "finished")
finish_exports(store, "bench", Path(sys.argv[1]).parent / PARQUET)
store.close()
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--engines", default="auto,sqlite", help="report --engine values")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        out.mkdir()
        started = time.perf_counter()
        build_db(out / "audit.db", args.rows)
        print(f"built {args.rows:,} rows in {time.perf_counter() - started:.1f}s")
        print(f"code measured: {Path(judgeaudit.__file__).parent} (PYTHONPATH picks another)")
        print(f"load average {os.getloadavg()[0]:.1f}")
        # a pass is remembered only for a file whose times are settled (check_memo.RACY_NS)
        time.sleep(max(0.0, 2.5 - (time.time() - (out / "audit.db").stat().st_mtime)))
        summary = []
        for index, engine in enumerate(args.engines.split(",")):
            # the report's child processes inherit it: a fresh, empty cache per engine
            os.environ["JUDGEAUDIT_CACHE_DIR"] = str(Path(tmp) / f"cache-{index}")
            for state in ("cold", "warm"):
                print(f"--engine {engine}, {state}; load average {os.getloadavg()[0]:.1f}")
                wall, cpu, base_wall, base_cpu, rss = compare_report(
                    out, Path(tmp), args.rows, engine
                )
                summary.append((engine, state, wall, cpu, base_wall, base_cpu, rss))
        print(f"load average {os.getloadavg()[0]:.1f}")
        print(
            "engine  state  wall s  CPU s  peak MiB  groupby CPU s  CPU / groupby  wall / groupby"
        )
        for engine, state, wall, cpu, base_wall, base_cpu, rss in summary:
            print(
                f"{engine:7} {state:5} {wall:7.2f} {cpu:6.2f} {rss / 2**20:9.0f} {base_cpu:14.2f}"
                f" {cpu / base_cpu:14.2f} {wall / base_wall:15.2f}"
            )


if __name__ == "__main__":
    main()

"""The full JSON report on 1,000,000 synthetic audit_pairs rows in a real audit DB, next to one
pandas cut+groupby fed from the same run's Parquet (issue 23, goal 5), as ratios of CPU and wall
time, with each process's peak RSS.

The measurement is `bench/recorded_scale.py`'s (:func:`compare_report`: each side in its own
child process, CPU and peak RSS from the kernel by wait4, so SQLite's and DuckDB's memory
counts). Goal 5's peer is :data:`PARQUET_SNIPPET`: recorded_scale's groupby, the same two
columns and bins, read by ``pandas.read_parquet`` from the ``audit_pairs.parquet`` the run wrote;
recorded_scale's own peer (the same groupby read from audit.db) is printed beside it. The run is
finished as a real run finishes (status, the Parquet copy, the report index, the verdict
counts), and the report is measured on each engine asked for: ``auto`` (the default: DuckDB
over the Parquet from 200,000 pairs) and ``sqlite`` (audit.db). Each engine is measured twice:
**cold**, the first report on the file (an empty cache: every column of audit.db is checked and
every figure computed), then **warm**, a later report on the unchanged files (the check's pass
and the report kept in the cache: ``audit/store/check_memo.py``, ``analysis/report_memo.py``).
For ``auto``, the engine a run's own closing report takes, the first state is **after run**:
the report a user asks for right after the run finished, once the run's closing report
(:data:`CLOSE`, as ``engine.run_audit`` computes it, timed apart as part of the run) was kept
for its racy files (their bytes hashed, ``report_memo``).
Usage: python bench/report_scale.py [--rows 1000000] [--engines auto,sqlite]
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
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: bench.*

from bench.recorded_scale import CPU, SNIPPET, compare_report, measured, mib

import judgeaudit
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.store.parquet_out import PARQUET


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


class Row(NamedTuple):
    """One engine's report in one state, beside the peers measured right after it."""

    engine: str
    state: str
    wall: float
    cpu: float
    rss: int
    peer_wall: float
    peer_cpu: float
    peer_rss: int
    db_cpu: float  # recorded_scale's peer: the groupby fed from audit.db


#: what a finishing run writes: the status, the Parquet copy, the report index, verdict counts
FINISH = """
import sys
from pathlib import Path
import judgeaudit
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.store.bulk import FinalExports, pair_batches
from judgeaudit.audit.store.parquet_out import PARQUET
from judgeaudit.audit.store.schema import PAIR_COLUMNS
store = AuditStore(Path(sys.argv[1]))
store.set_status("bench", "finished")
finishing = FinalExports(store, "bench", Path(sys.argv[1]).parent / PARQUET)
for rows in pair_batches(store, "bench", PAIR_COLUMNS, with_rowid=True):
    finishing.add(rows)
finishing.finish()
store.close()
"""


#: what a run does last (``engine.run_audit``): its report, computed on the files just written
CLOSE = """
import sys, time
from pathlib import Path
from judgeaudit.analysis.report import ReportOptions, build_report
started = time.process_time()
build_report(Path(sys.argv[1]), ReportOptions(run_id="bench"))
print(f"{time.process_time() - started:.2f}")
"""


def close_run(out: Path, cache: Path) -> None:
    """The run's closing report, right after :data:`FINISH` (racy files), kept in ``cache``."""
    env = {**os.environ, "JUDGEAUDIT_CACHE_DIR": str(cache)}
    env.pop("JUDGEAUDIT_REPORT_MEMO", None)
    done = subprocess.run(
        [sys.executable, "-c", CLOSE, str(out)], env=env, check=True, capture_output=True, text=True
    )
    kept = [json.loads(p.read_text()) for p in (cache / "reports").glob("*.json")]
    how = "not kept" if not kept else "kept with its files' digest (racy)"
    if kept and "content" not in kept[0]:
        how = "kept (settled files)"
    print(f"the run's closing report: {done.stdout.strip()} s CPU, {how}")


#: Goal 5's peer: recorded_scale's groupby (the same bins and aggregation), its two columns read
#: from the run's Parquet instead of audit.db.
READ_SQL = (
    "db = sqlite3.connect(sys.argv[1])\n"
    'pairs = pd.read_sql_query("SELECT reward_gap, misselected FROM audit_pairs", db)\n'
)
READ_PARQUET = 'pairs = pd.read_parquet(sys.argv[1], columns=["reward_gap", "misselected"])\n'
PARQUET_SNIPPET = SNIPPET.replace(READ_SQL, READ_PARQUET)


def parquet_peer(out: Path, work: Path, pairs: int) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS bytes) of goal 5's peer over ``out``'s Parquet."""
    if READ_SQL not in SNIPPET:
        raise SystemExit("recorded_scale's peer no longer reads audit.db so: update READ_SQL")
    wall, rss, text = measured(
        [sys.executable, "-c", PARQUET_SNIPPET, str(out / PARQUET)], work / "parquet_peer.log"
    )
    assert int(text) == pairs, (text, pairs)
    cpu = CPU["parquet_peer"]
    print(
        f"one pandas cut+groupby from the Parquet: {wall:6.1f}s wall {cpu:6.1f}s CPU"
        f"  peak RSS {mib(rss)}"
    )
    return wall, cpu, rss


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
        close_run(out, Path(tmp) / "cache-run")
        print(f"built {args.rows:,} rows in {time.perf_counter() - started:.1f}s")
        print(f"code measured: {Path(judgeaudit.__file__).parent} (PYTHONPATH picks another)")
        print(f"load average {os.getloadavg()[0]:.1f}")
        # a pass or a report is kept only for files whose times are settled (check_memo.RACY_NS)
        settled = max(
            max(st.st_mtime, st.st_ctime)
            for st in (os.stat(out / "audit.db"), os.stat(out / PARQUET))
        )
        time.sleep(max(0.0, 2.5 - (time.time() - settled)))
        summary: list[Row] = []
        for index, engine in enumerate(args.engines.split(",")):
            # the report's child processes inherit it: a fresh, empty cache per engine
            # (the run's own for "after run")
            states = ["cold", "warm"]
            if engine == "auto" and index == args.engines.split(",").index("auto"):
                states.insert(0, "after run")
            for state in states:
                if state != "after run":
                    os.environ["JUDGEAUDIT_CACHE_DIR"] = str(Path(tmp) / f"cache-{index}")
                else:  # the cache the run's closing report went to
                    os.environ["JUDGEAUDIT_CACHE_DIR"] = str(Path(tmp) / "cache-run")
                print(f"--engine {engine}, {state}; load average {os.getloadavg()[0]:.1f}")
                wall, cpu, _, db_cpu, rss = compare_report(out, Path(tmp), args.rows, engine)
                peer_wall, peer_cpu, peer_rss = parquet_peer(out, Path(tmp), args.rows)
                summary.append(
                    Row(engine, state, wall, cpu, rss, peer_wall, peer_cpu, peer_rss, db_cpu)
                )
        print(f"load average {os.getloadavg()[0]:.1f}")
        print(
            "goal 5: the report against one pandas groupby fed from the run's Parquet"
            " (peer); the same groupby fed from audit.db (recorded_scale's peer) beside it"
        )
        print(
            "engine  state      wall s  CPU s  peak MiB  peer wall  peer CPU  peer MiB"
            "  CPU / peer  wall / peer  CPU / audit.db groupby"
        )
        for r in summary:
            print(
                f"{r.engine:7} {r.state:9} {r.wall:7.2f} {r.cpu:6.2f} {r.rss / 2**20:9.0f}"
                f" {r.peer_wall:10.2f} {r.peer_cpu:9.2f} {r.peer_rss / 2**20:9.0f}"
                f" {r.cpu / r.peer_cpu:11.2f} {r.wall / r.peer_wall:12.2f}"
                f" {r.cpu / r.db_cpu:23.2f}"
            )


if __name__ == "__main__":
    main()

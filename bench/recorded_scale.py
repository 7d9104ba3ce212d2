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

The ingest (``import`` + ``run``) is also set against its floors, measured in the same run, as
time and CPU ratios (issue 23, goal 4: within 1.25x): :data:`FLOOR` (the log parsed, checked and
stored as two plain tables), the same with the cross-row checks, and :data:`FLOOR_ROWS` (the
rows the run itself stores, into audit.db's own tables and indexes).

Usage: python bench/recorded_scale.py [--pairs 5000000] [--dir DIR | --keep] [--report-only OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: bench.*

from bench.workdir import add_options, work_dir

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


#: The ingest floor: the same recorded-jsonl rows read, checked and stored by the plainest fast
#: means here: json.loads per line, per-column checks over lists (types, allowed values, every
#: verdict naming a stored pair), executemany into SQLite in one transaction with
#: synchronous=OFF and no journal, the index built after the insert. No scrubbing, no digests,
#: no derived files: what `import` + `run` must at least do for the same rows.
#:
#: With ``--cross`` (printed as a second floor; issue 23 asks for a floor of the same *kind* as
#: the run's validation) it adds the cross-row checks import and run make, in bulk SQL over the
#: loaded rows, and a SHA-256 of the file (the run binds a content hash into its spec): a
#: verdict per (pair, order) once, one task_type per task id, one success per side (task, agent,
#: trial), a pair listed once in either order. Still no scrubbing: the generated rows hold no
#: content column.
FLOOR = """
import hashlib, json, sqlite3, sys
src, path = sys.argv[1], sys.argv[2]
cross = sys.argv[3:] == ["--cross"]
if cross:
    content = hashlib.sha256()
    with open(src, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            content.update(block)
CROSS_CHECKS = (
    ("one task_type per task",
     "SELECT task_id FROM pairs GROUP BY task_id HAVING COUNT(DISTINCT task_type) > 1 LIMIT 1"),
    ("one success per (task, agent, trial)",
     "SELECT task_id, agent, trial FROM (SELECT task_id, agent_a AS agent, trial,"
     " success_a AS success FROM pairs UNION ALL SELECT task_id, agent_b, trial, success_b"
     " FROM pairs) GROUP BY task_id, agent, trial HAVING COUNT(DISTINCT success) > 1 LIMIT 1"),
    ("a pair once in either order",
     "SELECT task_id, trial, MIN(agent_a, agent_b), MAX(agent_a, agent_b) FROM pairs"
     " GROUP BY 1, 2, 3, 4 HAVING COUNT(*) > 1 LIMIT 1"),
)
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA journal_mode=OFF"); db.execute("PRAGMA synchronous=OFF")
db.execute("CREATE TABLE pairs (pair_id TEXT, task_id TEXT, trial INT, task_type TEXT,"
           " agent_a TEXT, agent_b TEXT, success_a INT, success_b INT)")
db.execute("CREATE TABLE verdicts (pair_id TEXT, ord TEXT, winner TEXT, score_a REAL,"
           " score_b REAL, judge_model TEXT)")
P = ("pair_id", "task_id", "trial", "task_type", "agent_a", "agent_b", "success_a", "success_b")
V = ("pair_id", "order", "winner", "score_a", "score_b", "judge_model")
def check(rows, names, kinds):
    for i, (name, kind) in enumerate(zip(names, kinds)):
        bad = [r for r in rows if not isinstance(r[i], kind)]
        if bad:
            raise SystemExit(f"{name}: {bad[0][i]!r}")
def flush(pairs, verdicts):
    check(pairs, P, (str, str, int, str, str, str, int, int))
    check(verdicts, V, (str, str, str, (int, float), (int, float), str))
    if {r[1] for r in verdicts} - {"AB", "BA"} or {r[2] for r in verdicts} - {"A", "B", "tie"}:
        raise SystemExit("order/winner")
    if {r[6] for r in pairs} - {0, 1} or {r[7] for r in pairs} - {0, 1}:
        raise SystemExit("success")
    db.executemany("INSERT INTO pairs VALUES (?,?,?,?,?,?,?,?)", pairs)
    db.executemany("INSERT INTO verdicts VALUES (?,?,?,?,?,?)", verdicts)
db.execute("BEGIN")
pairs, verdicts, loads = [], [], json.loads
with open(src, encoding="utf-8") as handle:
    for line in handle:
        r = loads(line)
        if "order" in r:
            verdicts.append(tuple(r.get(k) for k in V))
        else:
            pairs.append(tuple(r.get(k) for k in P))
        if len(verdicts) >= 200000:
            flush(pairs, verdicts); pairs, verdicts = [], []
flush(pairs, verdicts)
db.execute("CREATE UNIQUE INDEX pairs_id ON pairs (pair_id)")
db.execute("CREATE UNIQUE INDEX verdicts_pair ON verdicts (pair_id, ord)" if cross
           else "CREATE INDEX verdicts_pair ON verdicts (pair_id)")
orphan = db.execute("SELECT COUNT(*) FROM verdicts v LEFT JOIN pairs p USING (pair_id)"
                    " WHERE p.pair_id IS NULL").fetchone()[0]
if orphan:
    raise SystemExit(f"{orphan} verdicts name no pair")
if cross:
    for what, query in CROSS_CHECKS:
        found = db.execute(query).fetchone()
        if found is not None:
            raise SystemExit(f"{what}: {found}")
db.execute("COMMIT")
print(db.execute("SELECT COUNT(*) FROM pairs").fetchone()[0])
"""


#: The floor that stores *the same rows* (issue 23 goal 4: "validating and inserting the same
#: rows by the fastest means"): the plain floor's parsing and per-column checks, then the rows a
#: recorded run keeps in ``audit.db`` -- two trajectories, the ``audit_pairs`` row (its swap
#: rule, misselection and judge-score gap worked out inline), a ``judge_logs`` row per verdict
#: with its parsed JSON, a ``tasks`` row per task -- built in plain Python and inserted with
#: ``executemany`` into a database that ``AuditStore`` created (audit.db's own tables, keys and
#: indexes), in one transaction, synchronous=OFF, no journal, the secondary indexes dropped
#: before the insert and built again after it (faster than keeping them up to date). No
#: scrubbing, no digests, no cross-row checks (the second floor has those), no derived files.
FLOOR_ROWS = """
import json, sqlite3, sys
from pathlib import Path
from judgeaudit.audit.inputs.recorded_rows import LOG_COLUMNS, STORED_PAIR_COLUMNS, TRAJ_COLUMNS
from judgeaudit.audit.store import AuditStore
src, path = sys.argv[1], sys.argv[2]
AuditStore(Path(path)).close()
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA journal_mode=OFF"); db.execute("PRAGMA synchronous=OFF")
db.execute("PRAGMA cache_size=-131072")
TABLES = ("trajectories", "audit_pairs", "judge_logs", "tasks")
indexes = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
                     f" AND tbl_name IN {TABLES}").fetchall()
for name, _ in indexes:
    db.execute(f"DROP INDEX {name}")
RUN, FLIP, dumps = "floor", {"A": "B", "B": "A", "tie": "tie"}, json.dumps
def marks(n): return ",".join("?" * n)
SQL = {
    "trajectories": f"INSERT INTO trajectories ({','.join(TRAJ_COLUMNS)}) VALUES ({marks(len(TRAJ_COLUMNS))})",
    "audit_pairs": f"INSERT INTO audit_pairs ({','.join(STORED_PAIR_COLUMNS)}) VALUES ({marks(len(STORED_PAIR_COLUMNS))})",
    "judge_logs": f"INSERT INTO judge_logs ({','.join(chr(34) + c + chr(34) for c in LOG_COLUMNS)}) VALUES ({marks(len(LOG_COLUMNS))})",
    "tasks": "INSERT INTO tasks (run_id, task_id, task_json) VALUES (?, ?, ?)",
}
P = ("pair_id", "task_id", "trial", "task_type", "agent_a", "agent_b", "success_a", "success_b")
def check_pair(r):
    for name, kind in zip(P, (str, str, int, str, str, str, int, int)):
        if not isinstance(r.get(name), kind) or isinstance(r.get(name), bool):
            raise SystemExit(f"{name}: {r.get(name)!r}")
    if r["success_a"] not in (0, 1) or r["success_b"] not in (0, 1):
        raise SystemExit("success")
def check_verdict(v):
    if v["order"] not in ("AB", "BA") or v["winner"] not in ("A", "B", "tie"):
        raise SystemExit("order/winner")
    for name in ("score_a", "score_b"):
        if not isinstance(v.get(name), (int, float)):
            raise SystemExit(name)
seen_tasks = set()
rows = {t: [] for t in TABLES}
def emit(p, verdicts):
    task, trial, a, b = p["task_id"], p["trial"], p["agent_a"], p["agent_b"]
    pid = f"{RUN}/{task}/t{trial}/{a}~{b}"
    if task not in seen_tasks:
        seen_tasks.add(task)
        rows["tasks"].append((RUN, task, dumps({"task_id": task, "task_type": p["task_type"]})))
    for agent, success in ((a, p["success_a"]), (b, p["success_b"])):
        rows["trajectories"].append((f"{RUN}/{task}/t{trial}/{agent}", RUN, task, p["task_type"],
            agent, trial, "[]", "imported", None, success, "import", None, None))
    by = {v["order"]: v for v in verdicts}
    ab = by["AB"]["winner"] if "AB" in by else None
    ba = FLIP[by["BA"]["winner"]] if "BA" in by else None
    pref_ab, pref_ba = ab or "tie", ba or "tie"
    pref = pref_ab if pref_ab == pref_ba else "tie"
    sa = [v["score_a"] for v in verdicts]; sb = [v["score_b"] for v in verdicts]
    score_a, score_b = round(sum(sa) / len(sa), 3), round(sum(sb) / len(sb), 3)
    winner = "A" if p["success_a"] > p["success_b"] else "B" if p["success_b"] > p["success_a"] else None
    value = {"pair_id": pid, "task_id": task, "agent_a": a, "agent_b": b,
             "success_a": p["success_a"], "success_b": p["success_b"], "judge_pref": pref,
             "judge_score_a": score_a, "judge_score_b": score_b, "reward_gap": abs(score_a - score_b),
             "misselected": int(winner is not None and pref == FLIP[winner]), "run_id": RUN,
             "task_type": p["task_type"], "trial": trial, "pref_ab": pref_ab, "pref_ba": pref_ba,
             "consistent": int(ab is not None and ab == ba), "gap_source": "judge",
             "satisfied_a": None, "satisfied_b": None, "success_source": "import",
             "capability_a": None, "capability_b": None, "reward_a": None, "reward_b": None,
             "judge_model": verdicts[0]["judge_model"], "trial_b": trial, "source_id": p["pair_id"]}
    rows["audit_pairs"].append(tuple(value[c] for c in STORED_PAIR_COLUMNS))
    for v in verdicts:
        flipped = v["order"] == "BA"
        parsed = {"winner": FLIP[v["winner"]] if flipped else v["winner"],
                  "score_a": v["score_b"] if flipped else v["score_a"],
                  "score_b": v["score_a"] if flipped else v["score_b"], "reasons": []}
        rows["judge_logs"].append((f"{pid}/{v['order']}/recorded", pid, "judge",
            v["judge_model"], None, None, dumps(parsed), RUN, v["order"], 0, None))
def flush():
    for table in TABLES:
        db.executemany(SQL[table], rows[table])
        rows[table].clear()
db.execute("BEGIN")
pairs, verdicts, loads = {}, {}, json.loads
with open(src, encoding="utf-8") as handle:
    for line in handle:
        r = loads(line)
        if "order" in r:
            check_verdict(r)
            verdicts.setdefault(r["pair_id"], []).append(r)
        else:
            check_pair(r)
            pairs[r["pair_id"]] = r
        key = r["pair_id"]
        if key in pairs and len(verdicts.get(key, ())) == 2:
            emit(pairs.pop(key), verdicts.pop(key))
            if len(rows["audit_pairs"]) >= 20000:
                flush()
for key, p in pairs.items():
    if key not in verdicts:
        raise SystemExit(f"{key}: no verdict")
    emit(p, verdicts.pop(key))
if verdicts:
    raise SystemExit(f"{len(verdicts)} verdicts name no pair")
flush()
for _, sql in indexes:
    db.execute(sql)
db.execute("COMMIT")
print(db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0])
"""


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


def compare_report(
    out: Path, work: Path, expected: int | None, engine: str = "auto"
) -> tuple[float, float, float, float, int]:
    """The report (on ``engine``: ``report --engine``) against the groupby on ``out``, wall and
    CPU, with the ratios; returns (report wall, report CPU, groupby wall, groupby CPU, report
    peak RSS bytes)."""
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
        [sys.executable, "-m", "judgeaudit", "report", str(out), "--format", "json",
         "--engine", engine],
        work / "report.log",
    )  # fmt: skip
    for line in (work / "report.err").read_text().splitlines():
        print(f"  {line}")  # auto's line naming the engine it took
    report = json.loads(text)
    base_s, base_rss, count = measured(
        [sys.executable, "-c", SNIPPET, str(db)], work / "snippet.log"
    )
    assert int(count) == report["pairs"] == (expected or report["pairs"]), (count, expected)
    report_cpu, base_cpu = CPU["report"], CPU["snippet"]
    print(
        f"report --format json --engine {engine}: {report_s:6.1f}s wall {report_cpu:6.1f}s CPU"
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
    return report_s, report_cpu, base_s, base_cpu, report_rss


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=5_000_000)
    add_options(parser)
    parser.add_argument("--report-only", type=Path, metavar="OUT", help="an existing run's OUT")
    args = parser.parse_args()
    with work_dir(args.dir, "recorded-scale-", args.keep) as work:
        measure(args, work)


def measure(args: argparse.Namespace, work: Path) -> None:
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
    shutil.rmtree(out, ignore_errors=True)  # a --dir kept from an earlier run: one run in it
    wall, rss, _ = measured(
        [*py, "run", str(work / "spec.toml"), "--out", str(out), "--events", "jsonl", "--new-run"],
        work / "run.log",
    )
    print(f"run (recorded, no model call): {wall:7.1f}s  peak RSS {mib(rss)}")
    for name in ("floor", "floor-cross", "floor-rows"):  # a --dir kept from an earlier run
        for leftover in work.glob(f"{name}.db*"):
            leftover.unlink()
    floor_s, floor_rss, count = measured(
        [sys.executable, "-c", FLOOR, str(work / "full.recorded.jsonl"), str(work / "floor.db")],
        work / "floor.log",
    )
    assert int(count) == args.pairs, count
    cross_s, cross_rss, count = measured(
        [sys.executable, "-c", FLOOR, str(work / "full.recorded.jsonl"),
         str(work / "floor-cross.db"), "--cross"],
        work / "floor-cross.log",
    )  # fmt: skip
    assert int(count) == args.pairs, count
    rows_s, rows_rss, count = measured(
        [sys.executable, "-c", FLOOR_ROWS, str(work / "full.recorded.jsonl"),
         str(work / "floor-rows.db")],
        work / "floor-rows.log",
    )  # fmt: skip
    assert int(count) == args.pairs, count
    ours_s, ours_cpu = results["full"][0] + wall, CPU["import-full"] + CPU["run"]
    print(
        f"ingest floor (json.loads, per-column checks, executemany in one transaction, "
        f"synchronous=OFF): {floor_s:7.1f}s wall {CPU['floor']:6.1f}s CPU  peak RSS "
        f"{mib(floor_rss)}"
    )
    print(
        f"ingest floor with the cross-row checks in SQL and the file's SHA-256: {cross_s:7.1f}s"
        f" wall {CPU['floor-cross']:6.1f}s CPU  peak RSS {mib(cross_rss)}"
    )
    print(
        f"ingest floor storing the run's rows (audit.db's tables and indexes, built in plain"
        f" Python): {rows_s:7.1f}s wall {CPU['floor-rows']:6.1f}s CPU  peak RSS {mib(rows_rss)}"
    )
    for name, seconds in (("floor", floor_s), ("floor-cross", cross_s), ("floor-rows", rows_s)):
        print(
            f"ingest (import + run) / {name} over {args.pairs:,} pairs: time ratio "
            f"{ours_s / seconds:.2f}, CPU ratio {ours_cpu / CPU[name]:.2f} (goal <= 1.25); "
            f"load average {os.getloadavg()[0]:.1f}"
        )
    print(
        f"ingest parts: import {results['full'][0]:.1f}s wall {CPU['import-full']:.1f}s CPU,"
        f" run {wall:.1f}s wall {CPU['run']:.1f}s CPU"
    )
    compare_report(out, work, args.pairs)
    parquet = out / "audit_pairs.parquet"
    print(f"parquet export: {parquet} ({mib(parquet.stat().st_size)})")


if __name__ == "__main__":
    main()

"""The report's pair aggregation on DuckDB and on SQLite, beside one pandas groupby, all fed from
the same Parquet.

Generates N synthetic pairs (capability gaps, scores, both orders' verdicts, N/20 tasks) straight
to Parquet with DuckDB, loads the same rows into an audit.db (with the index a finished run
builds), then runs, each in its own process with its peak RSS measured by the kernel (wait4):
the report's every pair section (``report_sections`` + ``add_figures``) on SQLite, the same on
DuckDB over the Parquet, and the peer: pandas reading the Parquet's two needed columns and one
``pd.cut`` + ``groupby``. Prints wall time, CPU, peak RSS and the ratios against the groupby, and
checks that DuckDB's figures equal SQLite's. Not asserted by the test suite (CI runs it small).

Usage: python bench/engines.py [--pairs 5000000] [--dir DIR] [--skip-sqlite]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GENERATE = """
import sys, duckdb
n, path = int(sys.argv[1]), sys.argv[2]
tasks = max(1, n // 20)
duckdb.sql(f'''
COPY (
  SELECT 'p' || i AS pair_id, 't' || (hash(i, 1) % {tasks}) AS task_id,
    'agent-' || (i % 4) AS agent_a, 'agent-' || ((i + 1 + i // 4 % 3) % 4) AS agent_b,
    CAST(hash(i, 2) % 100 < 55 AS BIGINT) AS success_a,
    CAST(hash(i, 3) % 100 < 45 AS BIGINT) AS success_b,
    CASE hash(i, 4) % 5 WHEN 0 THEN 'tie' WHEN 1 THEN 'B' WHEN 2 THEN 'B' ELSE 'A' END AS judge_pref,
    CAST((hash(i, 5) % 51) / 10.0 AS DOUBLE) AS judge_score_a,
    CAST((hash(i, 6) % 51) / 10.0 AS DOUBLE) AS judge_score_b,
    CAST(NULL AS DOUBLE) AS reward_gap,
    CAST((success_a = 1 AND success_b = 0 AND judge_pref = 'B')
      OR (success_a = 0 AND success_b = 1 AND judge_pref = 'A') AS BIGINT) AS misselected,
    '2026-11-01 00:00:00' AS created_at, 'bench' AS run_id,
    'type-' || (hash(i, 8) % 6) AS task_type, CAST(i % 3 AS BIGINT) AS trial,
    CASE hash(i, 9) % 3 WHEN 0 THEN 'A' WHEN 1 THEN 'B' ELSE 'tie' END AS pref_ab,
    CASE hash(i, 10) % 3 WHEN 0 THEN 'A' WHEN 1 THEN 'B' ELSE 'tie' END AS pref_ba,
    CAST(hash(i, 11) % 100 < 70 AS BIGINT) AS consistent, 'capability' AS gap_source,
    CAST(hash(i, 12) % 2 AS BIGINT) AS satisfied_a, CAST(hash(i, 13) % 2 AS BIGINT) AS satisfied_b,
    'state' AS success_source,
    CAST(0.3 + 0.15 * (i % 4) AS DOUBLE) AS capability_a,
    CAST(0.3 + 0.15 * ((i + 1 + i // 4 % 3) % 4) AS DOUBLE) AS capability_b,
    CAST((hash(i, 14) % 101) / 100.0 AS DOUBLE) AS reward_a,
    CAST((hash(i, 15) % 101) / 100.0 AS DOUBLE) AS reward_b,
    'judge-' || (hash(i, 16) % 2) AS judge_model, CAST(NULL AS BIGINT) AS trial_b,
    CAST(NULL AS VARCHAR) AS source_id,
    CAST(i + 1 AS BIGINT) AS seq
  FROM range({n}) t(i)
) TO '{path}' (FORMAT parquet, COMPRESSION zstd)''')
"""

LOAD_SQLITE = """
import sys, duckdb, sqlite3
from judgeaudit.audit.store import PAIR_COLUMNS, REPORT_INDEX, AuditStore
parquet, db_path, empty = sys.argv[1], sys.argv[2], sys.argv[3] == "empty"
from pathlib import Path
AuditStore(Path(db_path)).close()
db = sqlite3.connect(db_path)
db.execute("PRAGMA synchronous = OFF")
db.execute("INSERT INTO runs (run_id, spec_hash, manifest, status) VALUES ('bench', 'x', '{}', 'finished')")
cols = ", ".join(PAIR_COLUMNS)
cur = duckdb.connect().execute(
    f"SELECT {cols} FROM '{parquet}' ORDER BY seq" + (" LIMIT 0" if empty else ""))
marks = ", ".join("?" for _ in PAIR_COLUMNS)
while rows := cur.fetchmany(100_000):
    db.executemany(f"INSERT INTO audit_pairs ({cols}) VALUES ({marks})", rows)
db.execute(REPORT_INDEX)
db.commit()
"""

SECTIONS = """
import json, sqlite3, sys, time
from pathlib import Path
from judgeaudit.analysis.aggregate import report_sections
from judgeaudit.analysis.split import add_figures
from judgeaudit.analysis.engines import open_pairs
from judgeaudit.audit.store import open_readonly
engine, db_path, parquet = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
db = open_readonly(db_path)
pairs = open_pairs(engine, db, db_path.parent, None if engine == "sqlite" else parquet)
bins, labels = [-0.01, 0.15, 0.3, 0.5, 1.0], ["near", "small", "medium", "large"]
report = report_sections(pairs, "bench", "capability", bins, labels, 4.0, db)
report.update(gap_source="capability", bins=bins,
              verdicts={"by_judge": []})
add_figures(report, pairs, "bench", 4.0)
report.pop("verdicts")
print(json.dumps(report, sort_keys=True, default=str))
"""

GROUPBY = """
import sys
import duckdb
import pandas as pd
try:
    import pyarrow  # noqa: F401
    pairs = pd.read_parquet(sys.argv[1], columns=["capability_a", "capability_b", "misselected"])
except ImportError:  # pandas reads Parquet through pyarrow; DuckDB hands the columns over
    pairs = duckdb.sql(f"SELECT capability_a, capability_b, misselected FROM '{sys.argv[1]}'").df()
gap = (pairs["capability_a"] - pairs["capability_b"]).abs()
pairs["gap_bucket"] = pd.cut(gap, bins=[-0.01, 0.15, 0.3, 0.5, 1.0],
                             labels=["near", "small", "medium", "large"])
stats = pairs.groupby("gap_bucket", observed=True)["misselected"].agg(["mean", "count", "sum"])
print(int(stats["count"].sum()))
"""


def measure(code: str, *args: str) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MiB, stdout) of ``python -c code args`` in its own process."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bench step failed: {code.strip().splitlines()[0]} {args}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def _figures(stdout: str) -> object:
    """The report sections' JSON line (a library may print a notice before it)."""
    line = next(ln for ln in reversed(stdout.splitlines()) if ln.startswith("{"))
    return json.loads(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5_000_000)
    parser.add_argument("--dir", type=Path, help="work directory, kept (default: a temporary one)")
    parser.add_argument("--skip-sqlite", action="store_true", help="DuckDB and pandas only")
    args = parser.parse_args()
    if args.dir is not None:
        args.dir.mkdir(parents=True, exist_ok=True)
        run(args, args.dir)
        return
    with tempfile.TemporaryDirectory(prefix="engines-bench-") as scratch:  # CI leaves nothing
        run(args, Path(scratch))


def run(args: argparse.Namespace, work: Path) -> None:
    parquet, db = work / "pairs.parquet", work / "audit.db"
    load = os.getloadavg()
    print(f"{args.pairs:,} pairs in {work} (load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")
    if not parquet.exists():
        wall, *_ = measure(GENERATE, str(args.pairs), str(parquet))
        print(f"  generated the Parquet in {wall:.1f} s ({parquet.stat().st_size / 2**20:.0f} MiB)")
    if not db.exists():  # the run's audit.db (its pairs too unless --skip-sqlite)
        wall, *_ = measure(LOAD_SQLITE, str(parquet), str(db), "empty" if args.skip_sqlite else "")
        print(f"  loaded audit.db in {wall:.1f} s")
    rows: dict[str, tuple[float, float, float, str]] = {}
    rows["pandas groupby (peer)"] = measure(GROUPBY, str(parquet))
    rows["duckdb (every pair section)"] = measure(SECTIONS, "duckdb", str(db), str(parquet))
    if not args.skip_sqlite:
        rows["sqlite (every pair section)"] = measure(SECTIONS, "sqlite", str(db), str(parquet))
    peer_wall, peer_cpu, _, _ = rows["pandas groupby (peer)"]
    print(f"  {'':<30}{'wall s':>9}{'CPU s':>9}{'peak MiB':>10}{'wall/peer':>11}{'CPU/peer':>10}")
    for name, (wall, cpu, rss, _) in rows.items():
        print(
            f"  {name:<30}{wall:>9.2f}{cpu:>9.2f}{rss:>10.0f}"
            f"{wall / peer_wall:>11.2f}{cpu / peer_cpu:>10.2f}"
        )
    if "sqlite (every pair section)" in rows:
        same = _figures(rows["sqlite (every pair section)"][3]) == _figures(
            rows["duckdb (every pair section)"][3]
        )
        print(f"  DuckDB's figures equal SQLite's: {same}")
    print(
        f"  (peak RSS: ru_maxrss of each process; this process: "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB)"
    )


if __name__ == "__main__":
    main()

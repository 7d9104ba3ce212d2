"""What swap consistency's intervals cost the report's scans, on DuckDB over a synthetic run's
Parquet (``bench/report_scale.py``'s run: 5,000 tasks, 5 task types, one judge model).

Three ways of the same figures, each run in this process and timed by its CPU, alternating:
``before`` (the splits and position bias's three per-judge scans, no breakdown consistency),
``separate`` (plus one scan per breakdown for its consistency) and ``folded`` (the report's
way: each breakdown's consistency a second part of the split's own scan, position bias's three
parts in one scan; ``clustered.grouped_parts``).
Usage: python bench/consistency_scans.py [--rows 1000000] [--rounds 4]
"""

from __future__ import annotations

import argparse
import resource
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: bench.*

from bench.report_scale import build_db
from bench.workdir import work_dir

from judgeaudit.analysis.clustered import PAIRS, as_int, grouped_parts
from judgeaudit.analysis.engines.auto import open_engine
from judgeaudit.analysis.frame import open_db
from judgeaudit.analysis.position import CONSISTENT, DECIDED, FIRST_WINS, FLIP, JUDGED_BOTH
from judgeaudit.analysis.split import DEC, RIGHT, TIE_SCORE, WRONG
from judgeaudit.cli import main

SPLIT = ([WRONG, RIGHT, TIE_SCORE], DEC)
AGREE = ([CONSISTENT], JUDGED_BOTH)
ORDERS = ([FIRST_WINS], DECIDED)
FLIPS = ([as_int(f"{FLIP} AND pref_ab = 'A'")], as_int(FLIP))
PAIR, TYPE, JUDGE = ["agent_a", "agent_b"], ["task_type"], ["judge_model"]


def cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def main_() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    with work_dir(None, "consistency-scans-") as tmp:
        out = tmp / "out"
        out.mkdir()
        build_db(out / "audit.db", args.rows)
        with sqlite3.connect(out / "audit.db") as db:
            db.execute("UPDATE runs SET status = 'finished'")
        assert main(["export", "parquet", str(out)]) == 0
        store = open_db(out)
        pairs, _ = open_engine("duckdb", store, out, "bench")

        Part = tuple[list[str], str]
        ways: dict[str, list[tuple[list[str], list[Part]]]] = {
            "before": [(PAIR, [SPLIT]), (TYPE, [SPLIT]), (JUDGE, [ORDERS]), (JUDGE, [AGREE]),
                       (JUDGE, [FLIPS])],
            "separate": [(PAIR, [SPLIT]), ([*PAIR, *JUDGE], [AGREE]), (TYPE, [SPLIT]),
                         (TYPE, [AGREE]), (JUDGE, [ORDERS]), (JUDGE, [AGREE]), (JUDGE, [FLIPS])],
            "folded": [(PAIR, [SPLIT, AGREE]), (TYPE, [SPLIT, AGREE]),
                       (JUDGE, [ORDERS, FLIPS, AGREE])],
        }  # fmt: skip
        for _ in range(args.rounds):
            for name, scans in ways.items():
                used, wall = cpu(), time.perf_counter()
                for keys, parts in scans:
                    grouped_parts(pairs, keys, parts, PAIRS, ("bench",))
                print(
                    f"{name:<9} {cpu() - used:.2f} s CPU  {time.perf_counter() - wall:.2f} s wall"
                )
        pairs.close()
        store.close()


if __name__ == "__main__":
    main_()

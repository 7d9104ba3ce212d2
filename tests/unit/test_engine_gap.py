"""DuckDB's gap (``FLOOR``, double literals) is the same double as Python's and SQLite's
(``CAST AS INTEGER``) on half-way and long-decimal values, so every engine buckets a pair alike."""

from __future__ import annotations

import random
import sqlite3

import duckdb

from judgeaudit.audit.units import gap as gaps


def _values() -> list[tuple[float, float]]:
    rng = random.Random(5)
    tricky = [(0.45, 0.15), (0.3000005, 0.0), (0.1000005, 0.0), (1.0, 0.0), (0.15, 0.0),
              (4.5, 4.3), (0.7, 0.4), (0.0000005, 0.0), (2.5e-7, 0.0)]  # fmt: skip
    for _ in range(5000):
        digits = rng.choice([1, 2, 3, 6, 7, 12])
        tricky.append((round(rng.uniform(0, 5), digits), round(rng.uniform(0, 5), digits)))
    return tricky


def test_duckdb_and_sqlite_round_every_gap_as_python_does() -> None:
    values = _values()
    want = [gaps.gap(a, b) for a, b in values]
    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE p (judge_score_a REAL, judge_score_b REAL)")
    lite.executemany("INSERT INTO p VALUES (?, ?)", values)
    sqlite_got = [
        r[0] for r in lite.execute(f"SELECT {gaps.gap_sql('judge')} FROM p ORDER BY rowid")
    ]
    duck = duckdb.connect()
    duck.execute("CREATE TABLE p (i BIGINT, judge_score_a DOUBLE, judge_score_b DOUBLE)")
    duck.executemany(
        "INSERT INTO p VALUES (?, ?, ?)", [(i, a, b) for i, (a, b) in enumerate(values)]
    )
    duck_got = [
        r[0]
        for r in duck.execute(
            f"SELECT {gaps.gap_sql('judge', floor=True)} FROM p ORDER BY i"
        ).fetchall()
    ]
    assert sqlite_got == want
    assert duck_got == want
    # DuckDB's integer cast rounds (the reason for FLOOR there): it would move some gaps.
    cast = [
        r[0] for r in duck.execute(f"SELECT {gaps.gap_sql('judge')} FROM p ORDER BY i").fetchall()
    ]
    assert cast != want

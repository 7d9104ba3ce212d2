"""The task-clustered sums come back from SQL already summed per group (one row per group, not
one per (group, task)), on SQLite and on DuckDB, equal to pandas' two-level groupby on a small
table with several tasks per group, NULL numerators and a task whose denominator is 0."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import duckdb
import pandas as pd
import pytest

from judgeaudit.analysis.clustered import Sums, grouped_sums
from judgeaudit.analysis.engines.dialect import DUCKDB, ListRows, Pairs, Rows, SqlitePairs

ROWS = [  # (bucket, task_id, x, y)
    (0, "t1", 1, 1), (0, "t1", 0, 1), (0, "t1", 1, 1),
    (0, "t2", 1, 1), (0, "t2", None, 1),
    (0, "t3", 0, 1), (0, "t3", 0, 1), (0, "t3", 0, 1), (0, "t3", 1, 1),
    (0, "t4", 1, 0),  # denominator 0: not a cluster
    (1, "t1", 1, 1), (1, "t5", 1, 1), (1, "t5", 1, 1),
    (1, "t6", 0, 1), (1, "t6", 1, 1), (1, "t6", 0, 1), (1, "t6", None, 1),
    (2, "t7", None, 1), (2, "t7", None, 1),  # numerators all NULL
]  # fmt: skip


class _Duck:
    dialect = DUCKDB

    def __init__(self, con: Any) -> None:
        self.con = con

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        return ListRows(self.con.execute(sql, list(params)).fetchall())

    def close(self) -> None:
        self.con.close()


def _engines() -> dict[str, Pairs]:
    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE p (bucket INTEGER, task_id TEXT, x INTEGER, y INTEGER)")
    lite.executemany("INSERT INTO p VALUES (?, ?, ?, ?)", ROWS)
    duck = duckdb.connect(":memory:")
    duck.execute("CREATE TABLE p (bucket INTEGER, task_id VARCHAR, x INTEGER, y INTEGER)")
    duck.executemany("INSERT INTO p VALUES (?, ?, ?, ?)", ROWS)
    return {"sqlite": SqlitePairs(lite), "duckdb": _Duck(duck)}


def _pandas() -> dict[tuple[Any, ...], Sums]:
    frame = pd.DataFrame(ROWS, columns=["bucket", "task_id", "x", "y"])
    per_task = frame.groupby(["bucket", "task_id"]).agg(x=("x", "sum"), y=("y", "sum"))
    per_task = per_task[per_task["y"] > 0].reset_index()
    out = {}
    for bucket, g in per_task.groupby("bucket"):
        x, y = g["x"].astype(float), g["y"].astype(float)
        out[(bucket,)] = Sums(
            float(x.sum()),
            float(y.sum()),
            float((x * x).sum()),
            float((x * y).sum()),
            float((y * y).sum()),
            len(g),
        )
    return out


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_sql_side_clustered_sums_equal_pandas(engine: str) -> None:
    db = _engines()[engine]
    got = grouped_sums(db, ["bucket"], ["x"], "y", "p")
    expected = _pandas()
    assert {key: sums[0] for key, sums in got.items()} == expected
    # by hand, bucket 0: tasks t1..t3 (x 2, 1, 1; y 3, 2, 4), t4 has y = 0
    assert expected[(0,)] == Sums(4.0, 9.0, 6.0, 12.0, 29.0, 3)
    db.close()


def test_one_row_per_group_reaches_python() -> None:
    """The second level (over tasks) is summed in SQL: the statement returns a row per bucket."""
    db = _engines()["sqlite"]
    assert isinstance(db, SqlitePairs)
    seen: list[str] = []
    db.db.set_trace_callback(seen.append)
    got = grouped_sums(db, ["bucket"], ["x", "y"], "y", "p")
    assert len(got) == 3 and len(seen) == 1
    rows = db.db.execute(seen[0]).fetchall()
    assert len(rows) == 3  # buckets, not the 8 (bucket, task) groups

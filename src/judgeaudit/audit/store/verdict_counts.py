"""The verdict counts of a finished run, kept in ``verdict_counts`` so a report does not read all
of ``judge_logs`` again (10M rows for 5M pairs, most of a report's time). The store writes them;
the analysis reads them through :func:`kept_verdict_counts` or counts live with
:func:`count_task_verdicts` (an unfinished or older run), with the same result.

An *order* (AB or BA) of a pair has no verdict when none of its attempts parsed. The counts
are taken per (judge model, task) in one pass and summed per judge model here; the per-task
orders and missing orders are kept too (``verdict_tasks``), for the no-verdict share's
task-clustered interval.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from judgeaudit.audit.store.schema import COUNTS_TABLE, TASK_COUNTS_TABLE, has_table, is_decisive

PER_PAIR = (
    "SELECT pair_id, COUNT(*) AS orders, SUM(ok = 0) AS missing, SUM(calls) AS calls,"
    " SUM(failed) AS failed FROM (SELECT pair_id, MAX(parse_error IS NULL) AS ok,"
    " COUNT(*) AS calls, SUM(parse_error IS NOT NULL) AS failed FROM judge_logs"
    ' WHERE run_id = ? GROUP BY pair_id, "order") GROUP BY pair_id'
)


SUMS = (
    "SUM(v.orders), SUM(v.missing), SUM(v.calls), SUM(v.failed), COUNT(*),"
    f" SUM(v.missing > 0), SUM(v.missing > 0 AND {is_decisive('p')})"
)


#: Each judged pair's order counts next to its audit_pairs row.
JOINED = f"FROM ({PER_PAIR}) v JOIN audit_pairs p ON p.pair_id = v.pair_id"


def count_task_verdicts(db: sqlite3.Connection, run_id: str) -> list[tuple[Any, ...]]:
    """Per (judge model, task): the model, the task, then the seven counts (orders, missing,
    calls, failed, pairs, without, decisive_without), read from ``judge_logs`` (one pass)."""
    return [
        tuple(row)
        for row in db.execute(
            f"SELECT p.judge_model, p.task_id, {SUMS} {JOINED}"
            " GROUP BY p.judge_model, p.task_id ORDER BY p.judge_model, p.task_id",
            (run_id,),
        )
    ]


def per_judge(task_rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """:func:`count_task_verdicts`' rows summed per judge model (None first, as SQL orders)."""
    totals: dict[Any, list[int]] = {}
    for model, _task, *counts in task_rows:
        into = totals.setdefault(model, [0] * len(counts))
        for i, value in enumerate(counts):
            into[i] += int(value or 0)
    order = sorted(totals, key=lambda m: (m is not None, m))
    return [(model, *totals[model]) for model in order]


def kept_verdict_counts(db: sqlite3.Connection, run_id: str) -> list[tuple[Any, ...]] | None:
    """The counts kept when the run finished, or None (an unfinished or older run)."""
    kept = has_table(db, "verdict_counts")
    finished = db.execute(
        "SELECT 1 FROM runs WHERE run_id = ? AND status = 'finished'", (run_id,)
    ).fetchone()
    if not (kept and finished):
        return None
    rows = db.execute(
        "SELECT judge_model, orders, missing, calls, failed, pairs, without, decisive_without"
        " FROM verdict_counts WHERE run_id = ? ORDER BY judge_model",
        (run_id,),
    ).fetchall()
    return [tuple(row) for row in rows] or None


def kept_task_counts(db: sqlite3.Connection, run_id: str) -> list[tuple[Any, ...]] | None:
    """(judge model, task, orders, missing) kept when the run finished, or None (an unfinished
    run, or one finished before ``verdict_tasks`` was kept)."""
    if not has_table(db, "verdict_tasks"):
        return None
    rows = db.execute(
        "SELECT judge_model, task_id, orders, missing FROM verdict_tasks WHERE run_id = ?",
        (run_id,),
    ).fetchall()
    return [tuple(row) for row in rows] or None


def keep_verdict_counts(db: sqlite3.Connection, run_id: str) -> None:
    """Count a finished run's verdicts once and keep them, per judge model and per (judge model,
    task) (called when its files are written)."""
    tasks = count_task_verdicts(db, run_id)
    db.execute("BEGIN")
    try:
        db.execute(COUNTS_TABLE)
        db.execute(TASK_COUNTS_TABLE)
        db.execute("DELETE FROM verdict_counts WHERE run_id = ?", (run_id,))
        db.execute("DELETE FROM verdict_tasks WHERE run_id = ?", (run_id,))
        db.executemany(
            "INSERT INTO verdict_counts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(run_id, *row) for row in per_judge(tasks)],
        )
        db.executemany(
            "INSERT INTO verdict_tasks VALUES (?, ?, ?, ?, ?)",
            [(run_id, *row[:4]) for row in tasks],
        )
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise

"""The no-verdict share (judged orders, two a swapped pair, without a parsable verdict) has the
report's interval, clustered by task, checked against statsmodels' Wilson at the task design
effect's effective n: read live from ``judge_logs`` while a run goes on, from the per-task counts
kept when it finished, and in the lines the report and the app print (``judges``' cell:
tests/tui/test_judges_board.py)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from judgeaudit.analysis.fmt import NO_TASK_COUNTS, no_verdict, verdict_line
from judgeaudit.analysis.verdicts import health_line, verdict_health
from judgeaudit.audit.store.schema import migrate
from judgeaudit.audit.store.verdict_counts import keep_verdict_counts, kept_task_counts
from tests.unit.test_split_figures import _statsmodels_interval

#: per task: its pairs (each judged AB then BA), and how many of its orders have no verdict.
#: The missing orders bunch in two tasks: the design effect is above 1.
TASKS = {"t1": (3, 4), "t2": (2, 2), "t3": (4, 0), "t4": (3, 0), "t5": (2, 1), "t6": (3, 0)}


def make_db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, path)
    db.execute("INSERT INTO runs (run_id, spec_hash, manifest) VALUES ('r', 'h', '{}')")
    for task, (pairs, missing) in TASKS.items():
        orders = [(f"{task}-{i}", o) for i in range(pairs) for o in ("AB", "BA")]
        for i in range(pairs):
            db.execute(
                "INSERT INTO audit_pairs (pair_id, task_id, agent_a, agent_b, success_a,"
                " success_b, judge_pref, run_id, judge_model) VALUES"
                " (?, ?, 'ace', 'weak', 1, 0, 'A', 'r', 'judge-x')",
                (f"{task}-{i}", task),
            )
        for j, (pair, order) in enumerate(orders):
            failed = j < missing
            # a missing order failed every attempt; a judged one may have failed its first
            attempts = (
                ["bad JSON", "bad JSON"] if failed else (["bad JSON", None] if j % 3 else [None])
            )
            for a, error in enumerate(attempts):
                db.execute(
                    'INSERT INTO judge_logs (log_id, pair_id, role, model, run_id, "order",'
                    " attempt, parse_error) VALUES (?, ?, 'judge', 'judge-x', 'r', ?, ?, ?)",
                    (f"{pair}-{order}-{a}", pair, order, a, error),
                )
    return db


def expected() -> tuple[float, float]:
    y = np.array([float(j < m) for p, m in TASKS.values() for j in range(2 * p)])
    groups = np.array([t for t, (p, _) in TASKS.items() for _ in range(2 * p)])
    return _statsmodels_interval(y, groups)


def test_the_no_verdict_share_has_the_task_clustered_interval(tmp_path: Path) -> None:
    low, high = expected()
    with closing(make_db(tmp_path / "audit.db")) as db:
        live = verdict_health(db, "r")  # a run still going: judge_logs read live
        assert kept_task_counts(db, "r") is None
        db.execute("UPDATE runs SET status = 'finished'")
        keep_verdict_counts(db, "r")
        assert kept_task_counts(db, "r") is not None
        kept = verdict_health(db, "r")  # the kept counts, judge_logs not read
    assert kept == live
    assert (live["no_verdict_orders"], live["orders"]) == (7, 34)
    for part in (live, live["by_judge"][0]):  # one judge model: its share is the run's
        assert part["no_verdict_rate_ci"] == pytest.approx([low, high], rel=1e-9)
    # by hand: 7/34 over 6 tasks, deff > 1, so wider than Wilson over 34 independent orders
    # (10.3–36.8%)
    assert low < 0.103 and high > 0.368
    shown = f"95% CI [{low * 100:.1f}, {high * 100:.1f}]"
    assert f"20.6% of orders (7/34; {shown}, Wilson with a task design effect)" in health_line(
        live, recorded=False
    )
    assert verdict_line({**live["by_judge"][0]}, recorded=False).startswith(
        f"judge-x: no verdict 20.6% of orders (7/34; {shown}), parse failures"
    )


def test_no_interval_is_built_for_per_task_counts_that_do_not_cover_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A history period imported before the per-task counts were kept has its per-judge counts
    and no per-task ones (nor ``judge_logs``): no interval is shown, and none is built first to
    be thrown away (``_health`` checked the coverage after building it)."""

    def built(*_: object) -> None:
        raise AssertionError("an interval was built for counts that do not cover the run")

    with closing(make_db(tmp_path / "audit.db")) as db:
        db.execute("UPDATE runs SET status = 'finished'")
        keep_verdict_counts(db, "r")
        db.execute("DELETE FROM verdict_tasks")
        db.execute("DELETE FROM judge_logs")  # as in a history's records
        monkeypatch.setattr("judgeaudit.analysis.verdicts.interval", built)
        health = verdict_health(db, "r")
    assert (health["no_verdict_orders"], health["orders"]) == (7, 34)
    assert health["no_verdict_rate_ci"] == [None, None]
    assert health["by_judge"][0]["no_verdict_rate_ci"] == [None, None]


def test_a_share_without_per_task_counts_says_it_has_no_interval() -> None:
    """A history period imported before per-task counts were kept: the line says why there is
    no interval instead of printing the share as if it were exact."""
    health = {"no_verdict_rate": 0.04, "no_verdict_orders": 8, "orders": 200,
              "no_verdict_rate_ci": [None, None]}  # fmt: skip
    assert (
        no_verdict(health, named=True) == f"4.0% of orders (8/200; no interval: {NO_TASK_COUNTS})"
    )

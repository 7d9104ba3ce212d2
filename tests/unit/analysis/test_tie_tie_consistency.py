"""Swap consistency says how much of it is tie/tie: two orders that both said "tie" agree, so a
judge answering "tie" to everything was 100% consistent in every output, read as "no position
bias" though it decided nothing. Each position-bias row (and each trend period) now carries the
tie/tie count and share and the consistency where an order named a side, with the report's
interval; checked by hand (statsmodels' Wilson at the design effect's n) on SQLite, DuckDB and
the pandas builder, and in the text, Markdown and HTML reports."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from judgeaudit.analysis.html import render_html
from judgeaudit.analysis.report import ReportOptions, build_report, build_report_pandas
from judgeaudit.analysis.report_render import render_markdown, render_table
from judgeaudit.analysis.trend import build_trend
from judgeaudit.analysis.trend_fmt import render
from judgeaudit.cli import main
from tests.unit.test_split_figures import _db, _pair, _statsmodels_interval

KEYS = ("both_tie", "both_tie_rate", "both_tie_rate_ci", "decided_pairs", "decided_consistent",
        "decided_consistency_rate", "decided_consistency_rate_ci")  # fmt: skip


def _swapped(i: int, task: str, ab: str, ba: str | None, consistent: int | None) -> dict[str, Any]:
    pref = ab if consistent else "tie"
    return _pair(i, task, 1, 0, pref, pref_ab=ab, pref_ba=ba, consistent=consistent)


def _reports(out: Path) -> list[Any]:
    """The report on SQLite, DuckDB (from the Parquet export) and the pandas builder."""
    sqlite = build_report(out, ReportOptions(engine="sqlite"))
    assert main(["export", "parquet", str(out)]) == 0
    return [sqlite, build_report(out, ReportOptions(engine="duckdb")), build_report_pandas(out)]


def test_an_always_tie_judge_is_all_tie_tie_and_its_decided_consistency_not_measured(
    tmp_path: Path,
) -> None:
    rows = [_swapped(i, f"t{i % 6}", "tie", "tie", 1) for i in range(12)]
    for report in _reports(_db(tmp_path, rows)):
        (row,) = report["position_bias"]
        assert (
            set(KEYS) <= set(row) and row["consistency_rate"] == 1.0
        )  # the definition stays (GAUGE's, the goldens')
        assert row["both_tie"] == 12 and row["both_tie_rate"] == 1.0
        assert row["decided_pairs"] == 0 and row["decided_consistent"] == 0
        assert row["decided_consistency_rate"] is None
        assert row["decided_consistency_rate_ci"] == [None, None]
    said = "(all of it tie/tie: 12 of 12 consistent pairs, 100.0%"
    named = "where an order named a side, consistent not measured, 0 pairs)"
    for text in (render_table(report), render_markdown(report), render_html(report, "")):
        assert said in text and named in text


def test_a_mixed_run_by_hand(tmp_path: Path) -> None:
    rows = [
        _swapped(0, "t0", "A", "A", 1),  # named a side, agreed
        _swapped(1, "t0", "tie", "tie", 1),  # tie/tie: consistent, decided nothing
        _swapped(2, "t1", "tie", "tie", 1),
        _swapped(3, "t1", "A", "B", 0),  # named, disagreed
        _swapped(4, "t2", "B", "B", 1),
        _swapped(5, "t2", "A", "tie", 0),  # one order named a side: counted, disagreed
        _swapped(6, "t3", "tie", "tie", 1),
        _swapped(7, "t3", "tie", "tie", 0),  # an unparsed order stores a tie: not consistent
        _swapped(8, "t4", "A", None, None),  # one order only: out of every figure here
    ]
    # by hand: 8 pairs judged in both orders, 5 consistent, 3 of them tie/tie; 4 pairs where
    # an order named a side (0, 3, 4, 5), 2 agreed (0, 4)
    tie = np.array([0, 1, 1, 0, 0, 0, 1, 0], dtype=float)
    tasks = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    named, named_tasks = np.array([1, 0, 1, 0], dtype=float), np.array([0, 1, 2, 2])
    for report in _reports(_db(tmp_path, rows)):
        (row,) = report["position_bias"]
        assert (row["pairs"], row["consistent"], row["consistency_rate"]) == (8, 5, 5 / 8)
        assert (row["both_tie"], row["both_tie_rate"]) == (3, 3 / 8)
        assert row["both_tie_rate_ci"] == pytest.approx(_statsmodels_interval(tie, tasks))
        assert (row["decided_pairs"], row["decided_consistent"]) == (4, 2)
        assert row["decided_consistency_rate"] == 0.5
        want = _statsmodels_interval(named, named_tasks)
        assert row["decided_consistency_rate_ci"] == pytest.approx(want)
    low, high = (f"{100 * v:.1f}" for v in _statsmodels_interval(named, named_tasks))
    text = render_table(report)
    assert "(tie/tie: 3 of 5 consistent pairs, 37.5%" in text
    assert f"where an order named a side, consistent 50.0% (2/4) [{low}, {high}]" in text


def test_the_trend_table_says_an_always_tie_periods_consistency_is_tie_tie(tmp_path: Path) -> None:
    rows = [_swapped(i, f"t{i % 6}", "tie", "tie", 1) for i in range(12)]
    rows.append(_swapped(12, "t0", "A", "A", 1))  # one pair named a side: 1/1 agreed
    out = _db(tmp_path, rows)
    with sqlite3.connect(out / "audit.db") as db:
        db.execute("UPDATE runs SET status = 'finished', created_at = '2026-11-01'")
    db.close()
    trend = build_trend([str(out)])
    (period,) = trend["periods"]
    got = period["position_consistency"]
    assert (got["rate"], got["consistent"], got["both_tie"], got["decided_pairs"]) == (
        1.0, 13, 12, 1)  # fmt: skip
    table = render(trend, "table")
    header, row = table.splitlines()[:2]
    assert "tie/tie of consistent" in header and "consistent, side named" in header
    assert "12/13" in row.split() and "100.0%" in row
    assert "tie/tie of consistent" in render(trend, "html")
    db = sqlite3.connect(out / "audit.db")
    with db:
        db.execute("DELETE FROM audit_pairs WHERE pair_id = 'p12'")
    db.close()
    (period,) = build_trend([str(out)])["periods"]
    assert period["position_consistency"]["decided_consistency_rate"] is None
    assert "not measured" in render(build_trend([str(out)]), "table").splitlines()[1]

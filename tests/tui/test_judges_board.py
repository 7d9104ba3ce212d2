"""The judge leaderboard on the Runs screen (`j`): the runs that judged the same conversations,
ranked by the tie-aware rate as `judgeaudit judges` ranks them, and Enter opens a judge's run."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint
from textual.widgets import Input

from judgeaudit.analysis.leaderboard import cells, leaderboard, render_leaderboard
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.judges_table import JudgesTable
from tests.tui.helpers import SIZE, make_app, painted, press, settle, snapshot
from tests.unit.test_split_figures import _statsmodels_interval

SMALL_SIZE = (80, 24)


def misselection_by_hand(out: Path) -> dict[str, tuple[int, int]]:
    """Each run's misselected and decisive pairs, counted in its audit.db (exactly one side
    succeeded; a tie or no verdict is not a misselection)."""
    with closing(sqlite3.connect(out / "audit.db")) as db:
        rows = db.execute(
            "SELECT run_id, SUM(COALESCE(misselected, 0)), COUNT(*) FROM audit_pairs "
            "WHERE success_a != success_b GROUP BY run_id"
        ).fetchall()
    return {str(r): (int(k), int(n)) for r, k, n in rows}


def tie_aware_by_hand(out: Path) -> dict[str, float]:
    """Each run's (wrong + tie/2) / decisive: a decisive pair neither misselected nor preferring
    the side that succeeded is a tie."""
    with closing(sqlite3.connect(out / "audit.db")) as db:
        rows = db.execute(
            "SELECT run_id, SUM(CASE WHEN COALESCE(misselected, 0) = 1 THEN 1.0 WHEN judge_pref "
            "= CASE WHEN success_a = 1 THEN 'A' ELSE 'B' END THEN 0.0 ELSE 0.5 END), COUNT(*) "
            "FROM audit_pairs WHERE success_a != success_b GROUP BY run_id"
        ).fetchall()
    return {str(r): float(s) / int(n) for r, s, n in rows}


def test_j_ranks_the_judges_of_the_same_conversations_and_enter_opens_one(
    isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    async def go() -> tuple[list[tuple[str, dict[str, Any]]], str | None, Any]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f6")
            app.screen.query_one("#r-b", Input).value = str(rejudged_copy)
            await press(pilot, "j")
            table = app.screen.query_one(JudgesTable)
            assert table.display and not app.screen.query_one("#drift").display
            rows = [(k, {c: str(v) for c, v in r.items()}) for k, r in table.shown_rows()]
            note = str(app.screen.query_one("#runs-status").render())
            assert "Enter opens a judge's run" in note
            await press(pilot, "down", "enter")
            await settle(pilot)
            results = app.get_screen("results")
            return rows, app.screen.id, (results.out, results.run_id)  # type: ignore[attr-defined]

    rows, screen, opened = asyncio.run(go())
    counts = {**misselection_by_hand(run_copy), **misselection_by_hand(rejudged_copy)}
    assert len(rows) == 2 == len(counts)
    rates = {run: k / n for run, (k, n) in counts.items()}
    tie_aware = {**tie_aware_by_hand(run_copy), **tie_aware_by_hand(rejudged_copy)}
    ranked = sorted(rates, key=lambda r: (tie_aware[r], rates[r], r))
    assert [r["run"] for _, r in rows] == ranked  # best first
    for _, row in rows:
        assert row["missel"].startswith(f"{rates[row['run']] * 100:.1f}%")
        assert row["tieaware"].startswith(f"{tie_aware[row['run']] * 100:.1f}%")
    assert rows[0][1]["vs"] == "best" and rows[1][1]["vs"] != "best"
    assert screen == "results"
    second = rows[1][0]
    assert opened == (Path(second.split("#")[0]), ranked[1])


def test_j_on_a_directory_with_one_judge_says_why_in_one_line(
    isolated: ProfileStore, run_copy: Path, tmp_path: Path
) -> None:
    async def go() -> tuple[str, bool]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f6")
            app.screen.query_one("#r-b", Input).value = ""
            await press(pilot, "j")
            note = str(app.screen.query_one("#runs-status").render())
            return note, bool(app.screen.query_one(JudgesTable).display)

    note, shown = asyncio.run(go())
    assert "fewer than two runs judged the same conversations" in note and not shown
    assert "judges: judges:" not in note  # the ranking's line already names the command


def test_judges_snapshot_at_80x24(
    snap_compare: Any, isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    async def fill(pilot: Any) -> None:
        pilot.app.action_goto("runs")
        await settle(pilot)
        pilot.app.screen.query_one("#r-b", Input).value = "rejudged"

    app = make_app(isolated, "run")
    assert snapshot(snap_compare, app, ["j"], size=SMALL_SIZE, before=fill)


def test_the_verdict_and_the_intervals_are_never_cut_at_160_120_or_80_columns(
    isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    """Narrow columns give way (they narrow or go) and the table fits the screen: at 80
    columns the verdict ran off its edge (``inconclusive (-2``) and at 120 the style term read
    ``asks_confirmation 12…``; an interval without its upper bound would mislead too. Read from
    the painted screen, not the table's cells."""
    whole = ("tieaware", "missel", "near", "ties", "sbf", "style", "vs")  # style: its figure

    async def go(size: tuple[int, int]) -> tuple[list[str], list[tuple[str, str]], list[str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            await press(pilot, "f6")
            app.screen.query_one("#r-b", Input).value = str(rejudged_copy)
            await press(pilot, "j")
            table = app.screen.query_one(JudgesTable)
            columns = [c for c in whole if c in table.columns]
            cells = [(c, str(row[c])) for _, row in table.shown_rows() for c in columns]
            return (
                columns,
                cells,
                [ln for ln in painted(app) if re.match(r"^ *\d+ +(\* +)?judge-", ln)],
            )

    expected = {
        (160, 40): ["tieaware", "missel", "near", "ties", "sbf", "style", "vs"],
        (120, 40): ["tieaware", "missel", "style", "vs"],
        SMALL_SIZE: ["tieaware", "vs"],  # the rank's key and the verdict; misselection at 120
    }
    for size, want in expected.items():
        columns, cells, rows = asyncio.run(go(size))
        assert columns == want, size
        assert len(rows) == 2, (size, rows)
        for column, full in cells:
            shown = full.partition(" ")[2] if column == "style" else full
            assert any(shown in row for row in rows) and "…" not in full, (size, column, full, rows)
        assert any(row.split()[1] == "*" for row in rows), (size, rows)  # the frontier's mark


def _clustered_reference(out: Path, run_id: str, value: str, where: str = "1") -> list[float]:
    """statsmodels' Wilson interval at the task design effect's n of a 0/1 SQL ``value``."""
    with closing(sqlite3.connect(out / "audit.db")) as db:
        rows = db.execute(
            f"SELECT task_id, {value} FROM audit_pairs WHERE run_id = ? AND {where}", (run_id,)
        ).fetchall()
    tasks = np.unique([t for t, _ in rows], return_inverse=True)[1]
    low, high = _statsmodels_interval(np.array([v for _, v in rows], dtype=float), tasks)
    return [low, high]


def _no_verdict_reference(out: Path, run_id: str) -> list[float]:
    """statsmodels' interval of the judged orders without a verdict (every attempt failed to
    parse), clustered by task; with none missing, Wilson's over the orders (deff 1 by hand:
    no variance within or between tasks)."""
    with closing(sqlite3.connect(out / "audit.db")) as db:
        rows = db.execute(
            "SELECT p.task_id, MIN(l.parse_error IS NOT NULL) FROM judge_logs l JOIN audit_pairs"
            ' p ON p.pair_id = l.pair_id WHERE l.run_id = ? GROUP BY l.pair_id, l."order"',
            (run_id,),
        ).fetchall()
    y = np.array([v for _, v in rows], dtype=float)
    if not y.any():
        return [float(v) for v in proportion_confint(0, len(y), method="wilson")]
    tasks = np.unique([t for t, _ in rows], return_inverse=True)[1]
    return list(_statsmodels_interval(y, tasks))


def test_ties_and_consistency_carry_the_reports_interval(
    run_copy: Path, rejudged_copy: Path
) -> None:
    """`judges`' ties (over decisive pairs, as the report's tie count: a new user read 21.4%
    where the report's 79 ties of 649 decisive pairs are 12.2%), swap consistency (over pairs judged in both orders) and
    the no-verdict share (over judged orders) have intervals, task-clustered as the report's: JSON, the table, the app's cells."""
    board = leaderboard([run_copy, rejudged_copy])
    text = render_leaderboard(board)
    assert "ties [95% CI]" in text.splitlines()[0] and "consistent [95% CI]" in text
    for row in board["judges"]:
        out, run = Path(row["out"]), row["run_id"]
        ties = _clustered_reference(
            out, run, "CAST(judge_pref = 'tie' AS INTEGER)", "success_a != success_b"
        )
        agree = _clustered_reference(
            out, run, "CAST(COALESCE(consistent, 0) = 1 AS INTEGER)", "pref_ba IS NOT NULL"
        )
        assert row["tie_share_ci"] == pytest.approx(ties, rel=1e-9)
        assert row["position_consistency_ci"] == pytest.approx(agree, rel=1e-9)
        shown = cells(row)
        assert shown["ties [95% CI]"] == (
            f"{row['tie_share'] * 100:.1f}% [{ties[0] * 100:.1f}, {ties[1] * 100:.1f}]"
        )
        consistent, tie_tie = shown["consistent [95% CI]"].split(" (tie/tie ")
        assert consistent.endswith(f"[{agree[0] * 100:.1f}, {agree[1] * 100:.1f}]")
        with sqlite3.connect(out / "audit.db") as db:  # by hand: consistent pairs, tie/tie ones
            counted = db.execute(
                "SELECT SUM(consistent), SUM(consistent = 1 AND pref_ab = 'tie') FROM"
                " audit_pairs WHERE run_id = ? AND pref_ba IS NOT NULL", (run,)
            ).fetchone()  # fmt: skip
        db.close()
        assert (row["position_consistent"], row["position_both_tie"]) == counted
        assert tie_tie == f"{row['position_both_tie']}/{row['position_consistent']})"
        assert shown["consistent [95% CI]"] in text
        missing = _no_verdict_reference(out, run)
        assert row["no_verdict_rate_ci"] == pytest.approx(missing, rel=1e-9, abs=1e-12)
        assert shown["no verdict [95% CI]"].endswith(
            f"[{missing[0] * 100:.1f}, {missing[1] * 100:.1f}]"
        )

"""The judge leaderboard on the Runs screen (`j`): the runs that judged the same conversations,
ranked by misselection as `judgeaudit judges` ranks them, and Enter opens a judge's run."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from textual.widgets import Input

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.judges_table import JudgesTable
from tests.tui.helpers import SIZE, make_app, press, settle, snapshot

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
    ranked = sorted(rates, key=lambda r: (rates[r], r))
    assert [r["run"] for _, r in rows] == ranked  # best first
    for _, row in rows:
        assert row["missel"].startswith(f"{rates[row['run']] * 100:.1f}%")
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
    assert "fewer than two runs judged the same trajectories" in note and not shown


def test_judges_snapshot_at_80x24(
    snap_compare: Any, isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    async def fill(pilot: Any) -> None:
        pilot.app.action_goto("runs")
        await settle(pilot)
        pilot.app.screen.query_one("#r-b", Input).value = "rejudged"

    app = make_app(isolated, "run")
    assert snapshot(snap_compare, app, ["j"], size=SMALL_SIZE, before=fill)


def test_the_verdict_and_the_interval_are_never_cut_at_120x40_or_80x24(
    isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    """Narrow columns give way (they narrow or go); "inconclusive (+1.8 pts)" read as
    "inconclusive…", or an interval without its upper bound, would mislead."""

    async def go(size: tuple[int, int]) -> list[tuple[str, str, str, str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            await press(pilot, "f6")
            app.screen.query_one("#r-b", Input).value = str(rejudged_copy)
            await press(pilot, "j")
            table = app.screen.query_one(JudgesTable)
            shown = []
            for key, row in table.shown_rows():
                for column in ("missel", "near", "vs"):
                    if column not in table.columns:  # dropped whole at this width
                        continue
                    cell = table.get_cell(key, column)
                    shown.append((key, column, str(row[column]), str(cell)))
            return shown

    for size, count in (((120, 40), 6), (SMALL_SIZE, 4)):
        cells = asyncio.run(go(size))
        assert len(cells) == count, "at 120 columns the near bucket's interval shows too"
        for key, column, full, drawn in cells:
            assert drawn == full and "…" not in drawn, (size, key, column, drawn)

"""Results' agent-pair rows open (issue 22): `a`, then Enter on a row lists that agent pair's
pairs, misselected first, as many as the pairs table holds for it."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import numpy as np
from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.pairs import PairsScreen
from judgeaudit.tui.widgets.fit_table import FitTable, plain
from tests.tui.helpers import SMALL, make_app, press
from tests.unit.test_split_figures import _statsmodels_interval


def test_enter_on_an_agent_pair_lists_its_pairs(isolated: ProfileStore, run_copy: Path) -> None:
    async def go() -> tuple[str, str, list[dict[str, str]]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f4", "a", "down")
            table = app.screen.query_one("#agent-pairs-table", FitTable)
            assert app.focused is table
            key = table.shown_rows()[table.cursor_row][0]
            await press(pilot, "enter")
            assert isinstance(app.screen, PairsScreen)
            title = str(app.screen.query_one("#pairs-title").render())
            rows = app.screen.query_one(FitTable).rows_data
            return key, title, [{c: plain(v) for c, v in r.items()} for _, r in rows]

    key, title, rows = asyncio.run(go())
    agent_a, agent_b = key.split("~")
    db = sqlite3.connect(run_copy / "audit.db")
    total, missel = db.execute(
        "SELECT count(*), sum(misselected = 1) FROM audit_pairs WHERE agent_a = ? AND agent_b = ?",
        (agent_a, agent_b),
    ).fetchone()
    db.close()
    assert title.startswith(f"Pairs of {agent_a} vs {agent_b}: {total} pairs")
    assert {(r["a"], r["b"]) for r in rows} == {(agent_a, agent_b)} and len(rows) == total
    flags = [r["missel"] == "MISSELECTED" for r in rows]
    assert sum(flags) == (missel or 0) and flags == sorted(flags, reverse=True)


def test_the_highlighted_agent_pairs_shares_show_their_intervals(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """At 80×24 the table has no room for four intervals a row: the line under it gives the
    highlighted pair's, the report's (statsmodels' Wilson at the task design effect's n)."""

    async def go() -> tuple[str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f4", "a", "down")
            table = app.screen.query_one("#agent-pairs-table", FitTable)
            key = table.shown_rows()[table.cursor_row][0]
            return key, str(app.screen.query_one("#agent-pair-shares", Static).render())

    key, line = asyncio.run(go())
    agent_a, agent_b = key.split("~")
    db = sqlite3.connect(run_copy / "audit.db")
    rows = db.execute(
        "SELECT task_id, success_b FROM audit_pairs WHERE agent_a = ? AND agent_b = ?",
        (agent_a, agent_b),
    ).fetchall()
    db.close()
    tasks = np.unique([t for t, _ in rows], return_inverse=True)[1]
    low, high = _statsmodels_interval(np.array([s for _, s in rows], dtype=float), tasks)
    assert line.startswith("95% CI: Wilson with a task design effect")
    assert f"\n{agent_a} vs {agent_b} ({len(rows)} pairs): success A / B " in line
    share_b = sum(s for _, s in rows) / len(rows)
    assert f" / {share_b:.2f} [{low:.2f}, {high:.2f}]; judge wins A / B " in line

"""Results' agent-pair rows open (issue 22): `a`, then Enter on a row lists that agent pair's
pairs, misselected first, as many as the pairs table holds for it."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.pairs import PairsScreen
from judgeaudit.tui.widgets.fit_table import FitTable, plain
from tests.tui.helpers import SMALL, make_app, press


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

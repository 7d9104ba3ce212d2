"""At 80×24 every rate a table shows keeps its interval and its n, and the method is on screen
(a new user: Results' agent pairs read `ace pro … 9.1%` on n=11, the bucket table dropped its
tie-aware column, the Runs drift table its before/after rates)."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import numpy as np
from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.fit_table import FitTable, plain
from tests.tui.helpers import SMALL, compare_in_runs, make_app, press, settle
from tests.unit.test_split_figures import _statsmodels_interval

PERCENT = re.compile(r"\d+(?:\.\d+)?%")
#: a rate with its interval, whole: ``9.1% [1.6, 37.7]``
WITH_INTERVAL = re.compile(r"^\d+\.\d% \[\d+\.\d+, \d+\.\d+\]$")


def shown(table: FitTable) -> dict[str, dict[str, str]]:
    """The cells as painted, by row key and column key (only the columns that fit)."""
    keys = [str(c.value) for c in table.columns]
    return {
        str(row.key.value): {k: plain(v) for k, v in zip(keys, table.get_row(row.key), strict=True)}
        for row in table.ordered_rows
    }


def bare_rates(rows: dict[str, dict[str, str]]) -> list[str]:
    """Every painted cell holding a percentage that is not a rate with its whole interval."""
    return [
        f"{key}: {cell}"
        for key, row in rows.items()
        for cell in row.values()
        if PERCENT.search(cell) and not WITH_INTERVAL.match(cell)
    ]


def test_results_tables_keep_each_rates_interval_and_n_at_80x24(
    isolated: ProfileStore, run_copy: Path
) -> None:
    async def go() -> tuple[dict[str, dict[str, dict[str, str]]], dict[str, str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f4", "a")
            await settle(pilot)
            tables = {
                name: shown(app.screen.query_one(f"#{name}", FitTable))
                for name in ("buckets", "agent-pairs-table", "task-types")
            }
            lines = {
                name: "".join(str(w.render()) for w in app.screen.query(f"#{name}").results(Static))
                for name in ("outside", "agent-pair-shares", "task-method")
            }
            return tables, lines

    tables, lines = asyncio.run(go())
    for name, rows in tables.items():
        assert rows, name
        assert not bare_rates(rows), (name, bare_rates(rows))
        first = next(iter(rows.values()))
        assert "decisive" in first and "rate" in first, (name, first)  # the n beside the rate
    buckets = tables["buckets"]
    # the tie-aware rate kept at 80 (bare_rates checked its interval)
    assert WITH_INTERVAL.match(buckets["overall"].get("tie", "")), buckets["overall"]
    # the method, named under each table
    assert "95% CI: Wilson score interval with a design effect" in lines["outside"]
    for name in ("agent-pair-shares", "task-method"):
        assert lines[name].startswith("95% CI: Wilson with a task design effect"), lines[name]

    # one agent pair's cell against statsmodels' Wilson at the design effect's n
    db = sqlite3.connect(run_copy / "audit.db")
    agents = tables["agent-pairs-table"]
    for key, row in agents.items():
        agent_a, agent_b = key.split("~")
        found = db.execute(
            "SELECT task_id, misselected FROM audit_pairs WHERE agent_a = ? AND agent_b = ?"
            " AND success_a != success_b",
            (agent_a, agent_b),
        ).fetchall()
        assert row["decisive"] == str(len(found))
        y = np.array([m for _, m in found], dtype=float)
        if not len(y) or not y.sum():
            continue
        tasks = np.unique([t for t, _ in found], return_inverse=True)[1]
        low, high = _statsmodels_interval(y, tasks)
        assert row["rate"] == f"{y.mean() * 100:.1f}% [{low * 100:.1f}, {high * 100:.1f}]", key
    db.close()


def test_runs_drift_table_keeps_before_after_and_change_intervals_at_80x24(
    isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    async def go() -> tuple[dict[str, dict[str, str]], str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await compare_in_runs(pilot, app, rejudged_copy)
            await settle(pilot)
            pane = app.screen.query_one("#changes-pane")
            return shown(app.screen.query_one("#drift", FitTable)), str(pane.border_subtitle)

    rows, method = asyncio.run(go())
    assert rows
    for key, row in rows.items():
        assert {"n", "before", "after", "change"} <= set(row), (key, row)
        if row["n"] != "0":
            assert WITH_INTERVAL.match(row["before"]) and WITH_INTERVAL.match(row["after"]), row
            assert re.fullmatch(r"[+-]\d+\.\d \[[+-]\d+\.\d, [+-]\d+\.\d\]", row["change"]), row
    assert method.startswith("95% CI: before, after Wilson with a task design effect")

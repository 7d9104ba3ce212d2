"""The Run screen's live agent-pair table gives each misselection rate the report's interval
(Wilson at the task design effect's effective n, checked against statsmodels), kept up a pair at
a time; an event stream without task ids shows none, and the column goes first when narrow."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np

from judgeaudit.audit import events as ev
from judgeaudit.audit.units.verdict_parse import Pref
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.bridge import RunBridge
from judgeaudit.tui.screens.run import RunScreen
from judgeaudit.tui.widgets.fit_table import FitTable, plain
from tests.tui.helpers import SMALL, make_app, settle
from tests.unit.test_split_figures import _statsmodels_interval

#: ace vs weak, per task: (decisive pairs, of them misselected), and one non-decisive pair each.
#: Misselections bunch in two tasks, so the design effect is well above 1.
TASKS = {"t1": (4, 3), "t2": (3, 2), "t3": (4, 0), "t4": (2, 0), "t5": (3, 0), "t6": (4, 1)}


def events() -> list[ev.Event]:
    out: list[ev.Event] = []
    for task, (decisive, wrong) in TASKS.items():
        for i in range(decisive):
            missel = i < wrong
            pref: Pref = "B" if missel else "A"
            out.append(
                ev.PairDone(f"r/{task}/t{i}", "ace", "weak", True, False, pref, missel, task)
            )
        out.append(ev.PairDone(f"r/{task}/tie", "ace", "weak", True, True, "tie", False, task))
    # a pair from an event stream written before PairDone carried its task (over the pipe)
    old = ev.event_json(ev.PairDone("r/x/t0", "ace", "pro", True, False, "B", True))
    old.pop("task_id")
    out.append(ev.event_from_json(old))
    return out


async def table_at(app: JudgeAuditApp, pilot_size: tuple[int, int]) -> dict[str, dict[str, str]]:
    async with app.run_test(size=pilot_size) as pilot:
        app.show_place("run")
        await settle(pilot)
        bridge = RunBridge(Path("examples/demo.toml"), Path("out/demo"))
        screen = app.get_screen("run")
        assert isinstance(screen, RunScreen)
        screen.attach(bridge)
        bridge.on_event(ev.RunStarted("r", "out/demo", False, 0, 0, 30, 0, []))
        bridge.on_events(events())
        screen.drain()
        await settle(pilot)
        table = screen.query_one("#agent-pairs", FitTable)
        shown = [str(c.value) for c in table.columns]
        assert screen.query_one(FitTable).tooltip is not None
        return {
            key: {k: plain(v) for k, v in row.items() if k in shown}
            for key, row in table.shown_rows()
        }


def test_the_live_rate_has_the_reports_interval(isolated: ProfileStore) -> None:
    rows = asyncio.run(table_at(make_app(isolated), SMALL))
    y = np.array([float(i < w) for d, w in TASKS.values() for i in range(d)])
    groups = np.array([t for t, (d, _) in TASKS.items() for _ in range(d)])
    low, high = _statsmodels_interval(y, groups)
    ace_weak = rows["ace~weak"]
    assert (ace_weak["decisive"], ace_weak["missel"], ace_weak["rate"]) == ("20", "6", "30.0%")
    assert ace_weak["ci"] == f"[{low * 100:.1f}, {high * 100:.1f}]"
    # by hand: deff = (7.1 / 20² × 6/5) / (0.3 × 0.7 / 19) = 1.93, so the interval is Wilson's
    # at n = 10.4, wider than Wilson's over the 20 pairs as if independent (14.5–51.9%)
    assert ace_weak["ci"] == "[11.0, 59.8]"
    assert rows["ace~pro"]["ci"] == "—"  # no task: no interval rather than a wrong one


def test_the_interval_column_goes_first_when_narrow(isolated: ProfileStore) -> None:
    rows = asyncio.run(table_at(make_app(isolated), (52, 24)))
    assert "ci" not in rows["ace~weak"] and rows["ace~weak"]["rate"] == "30.0%"

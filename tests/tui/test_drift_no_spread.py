"""A paired row whose tasks all moved alike has no interval (its CR1 spread is 0) and says so in
its change cell; at 80×24 the drift table still shows both rates beside it (a review: a long
"(no spread: every task moved alike)" cell pushed out the before and after columns)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.analysis import compare_entry
from judgeaudit.analysis.fmt import NO_TASK_SPREAD
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.fit_table import FitTable
from tests.tui.helpers import SMALL, compare_in_runs, make_app, settle
from tests.tui.test_rates_at_80 import WITH_INTERVAL, shown


def test_a_row_without_task_spread_keeps_both_rates_at_80x24(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = compare_entry.compare_runs

    def no_spread(*args: Any, **kwargs: Any) -> compare_entry.Comparison:
        compared = real(*args, **kwargs)
        overall = compared.result["overall"]
        assert (
            overall["paired"]["flipped_to_misselected"] + overall["paired"]["flipped_to_correct"]
        ), "the rows need flips for this"
        overall["ci_low"] = overall["ci_high"] = None  # as clustered() gives every task alike
        return compared

    monkeypatch.setattr(compare_entry, "compare_runs", no_spread)

    async def go() -> dict[str, dict[str, str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await compare_in_runs(pilot, app, rejudged_copy)
            await settle(pilot)
            return shown(app.screen.query_one("#drift", FitTable))

    rows = asyncio.run(go())
    assert rows["overall"]["change"].endswith(NO_TASK_SPREAD), rows["overall"]
    for key, row in rows.items():
        assert {"before", "after"} <= set(row), (key, row)
        if row["n"] != "0":
            assert WITH_INTERVAL.match(row["before"]) and WITH_INTERVAL.match(row["after"]), row

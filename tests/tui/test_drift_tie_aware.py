"""The drift table shows the criterion the gate decided on: a judge that answers "tie" to
everything fails `compare --fail-on-rise` on the tie-aware rate, and the Runs screen said
FAILED above a table whose every row with data read "fall" (a review, twenty-first session)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.fit_table import FitTable
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.cli_helpers import cli, recorded_runs_in_one
from tests.integration.test_gate_ties import _good, _log
from tests.tui.helpers import SMALL, make_app, notices, painted, press, settle, wait_until


@pytest.fixture(scope="module")
def good_then_tie(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One output directory: the good judge's run, then the always-tie judge's on the same
    logged pairs (`run --new-run`), as `compare OUT` takes them."""
    folder = tmp_path_factory.mktemp("drift-ties")
    tie = _log("judge-always-tie", lambda rng, right, order: "tie")
    return recorded_runs_in_one(folder, [("good", _log("judge-good", _good)), ("tie", tie)])


def test_the_tie_aware_row_shows_the_rise_the_gate_failed_on(
    isolated: ProfileStore, good_then_tie: Path
) -> None:
    gated = cli("compare", str(good_then_tie), "--fail-on-rise")
    assert gated.returncode == 3, gated.stdout + gated.stderr
    line = next(s for s in gated.stdout.splitlines() if "tie-aware overall" in s)
    # the CLI's figures: +35.2 [+32.5, +37.9] and its p, which the row must repeat
    change, interval, p = re.search(r"\)  (\S+) (\[[^]]+\]) bound \S+  p=(\S+)", line).groups()  # type: ignore[union-attr]

    async def go(size: tuple[int, int]) -> tuple[list[str], list[str]]:
        app = make_app(isolated, good_then_tie)
        async with app.run_test(size=size) as pilot:
            await press(pilot, "f6")
            picker = app.screen.query_one(RunPicker)
            await wait_until(pilot, lambda: picker.row_count == 2, "both runs listed")
            await press(pilot, "ctrl+t")
            await settle(pilot)
            shown = painted(app)
            table = app.screen.query_one("#drift", FitTable)
            table.focus()
            table.move_cursor(row=table.row_count - 1)
            await press(pilot, "enter")  # the tie-aware row lists no flips: it says so
            return shown, notices(app)

    for size in (SMALL, (120, 40)):
        shown, toasts = asyncio.run(go(size))
        screen = "\n".join(shown)
        assert "FAILED" in screen, screen
        row = next((s for s in shown if s.strip().startswith("tie-aware")), None)
        assert row is not None, screen
        # at 80 columns the p-value gives way to each run's rate with its interval
        wanted = (change, interval, "RISE") if size == SMALL else (change, interval, p, "RISE")
        assert list(wanted) == [v for v in wanted if v in row], (size, row)
        # each rate shown with its interval, never bare (run B's gives way at 80 columns here:
        # before + change); at 120 both runs' rates
        rates = re.findall(r"\d+\.\d%( \[[\d.]+, [\d.]+\])?", row)
        assert rates and all(rates) and len(rates) == (1 if size == SMALL else 2), (size, row)
        overall = next(s for s in shown if s.strip().startswith("overall"))
        assert "fall" in overall  # misselection itself fell: the rise is the tie-aware rate's
        assert any("the tie-aware row lists no flips" in t for t in toasts), toasts

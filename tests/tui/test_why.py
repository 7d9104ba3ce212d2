"""The Why view: `w` on Results opens what moves this judge, the forest plot drawn in the
terminal from the same report section the text report prints."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Static

from judgeaudit.analysis.report import build_report
from judgeaudit.analysis.why_fmt import forest_text
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.why import WhyScreen
from tests.tui.helpers import SIZE, make_app, press, settle


def test_y_on_results_draws_the_odds_ratios_of_the_report(
    isolated: ProfileStore, run_copy: Path
) -> None:
    style = build_report(run_copy)["style"]

    async def go() -> str:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f4")
            await settle(pilot)
            await press(pilot, "w")
            await settle(pilot)
            assert isinstance(app.screen, WhyScreen)
            shown = str(app.screen.query_one("#why-plot", Static).render())
            await press(pilot, "escape")
            assert not isinstance(app.screen, WhyScreen)
            return shown

    shown = asyncio.run(go())
    if style["status"] == "ok":
        assert forest_text(style)[0] in shown and "│" in shown
    else:
        assert style["note"] in shown


def test_why_without_a_report_says_so_and_names_no_run(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    async def go() -> tuple[str, str]:
        app = make_app(isolated, tmp_path / "empty")
        async with app.run_test(size=SIZE) as pilot:
            app.push_screen(WhyScreen(None, None))
            await settle(pilot)
            title = str(app.screen.query_one("#why-title", Static).render())
            plot = str(app.screen.query_one("#why-plot", Static).render())
            return title, plot

    title, plot = asyncio.run(go())
    assert title == "What moves this judge", "no 'run ?' when there is no run"
    assert plot.startswith("No report yet")

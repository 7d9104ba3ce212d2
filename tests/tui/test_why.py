"""The Why view: `w` on Results opens what moves this judge, the forest plot drawn in the
terminal from the same report section the text report prints."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Static

from judgeaudit.analysis.report import build_report
from judgeaudit.analysis.why_fmt import forest_text, term_lines
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.why import WhyScreen
from tests.tui.helpers import SIZE, SMALL, make_app, press, settle


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


def test_at_80_columns_each_term_unit_is_a_line_of_its_own(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """At 80x24 a term's line (about 100 columns) wrapped at the edge, so the end of its unit
    (`minus no, first minus second`) read, unindented, as a line of its own: the unit goes on
    an indented line under its figures; at 100 columns the line is left whole."""
    style = build_report(run_copy)["style"]
    assert style["status"] == "ok"

    async def go(size: tuple[int, int]) -> list[str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            await press(pilot, "f4", "w")
            await settle(pilot)
            assert isinstance(app.screen, WhyScreen)
            return str(app.screen.query_one("#why-plot", Static).render()).split("\n")

    narrow, wide = asyncio.run(go(SMALL)), asyncio.run(go((130, 40)))
    for figures, unit in term_lines(style):
        assert figures.rstrip() in narrow and f"    {unit}" in narrow, (figures, narrow)
        assert f"{figures} {unit}" in wide, (figures, wide)


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


def test_the_why_view_marks_an_unstable_odds_ratio_and_draws_it_last() -> None:
    """The demo's style-weighted re-judge: cites_ids 796 [66.7, 9.5e+03] spans 142-fold (by
    hand), over 100; asks_confirmation 43.1 [7.56, 246] 32.5-fold."""
    from judgeaudit.tui.screens.why import why_text

    def term(feature: str, odds: float, low: float, high: float) -> dict[str, object]:
        return {"feature": feature, "kind": "process", "odds_ratio": odds, "ci_low": low,
                "ci_high": high, "unit": "yes minus no"}  # fmt: skip

    rate = {"rate": 0.12, "ci_low": 0.09, "ci_high": 0.16, "orders": 1221, "method": "m",
            "model_rate": 0.12}  # fmt: skip
    style = {"status": "ok", "method": "logit", "orders": 2287, "tasks": 42, "dropped": [],
             "terms": [term("cites_ids", 796.0, 66.7, 9500.0),
                       term("asks_confirmation", 43.1, 7.56, 246.0)],
             "zeroed": [], "raw_rate": rate, "controlled_rate": rate, "explained": 0,
             "misselected": 56, "explained_by": {}}  # fmt: skip
    shown = why_text(style).plain.splitlines()
    plot = [ln for ln in shown if ln.startswith(("asks confirmation ", "cites order/item ids "))]
    assert plot[0].startswith("asks confirmation") and plot[0].endswith(" 43.1")
    assert plot[1].startswith("cites order/item ids") and plot[1].endswith(" 796 (unstable)")
    # fewer than three stable terms reward: the unstable one is named after them, flagged
    assert shown[0].startswith("rewards asks confirmation, cites order/item ids (size unstable)")
    assert any(ln.strip().startswith("(unstable) marks a term") for ln in shown)

"""The Runs compare shows each run's own report figures (issue 21 item 9): the three-way split,
the tie-aware rate and both position-bias statistics of run A and run B, counted here by hand
from each audit.db (not from the report code)."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

from textual.widgets import Input, Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.runs import RunsScreen
from judgeaudit.tui.widgets.fit_table import FitTable, plain
from judgeaudit.tui.widgets.run_figures import RunFigures
from tests.tui.helpers import SIZE, make_app, notices, press


def hand_counts(out: Path) -> dict[str, int]:
    """right / wrong / tie over decisive pairs; first-position wins over decided orders and over
    real order disagreements, straight from the pairs table."""
    db = sqlite3.connect(out / "audit.db")
    rows = db.execute(
        "SELECT success_a, success_b, misselected, judge_pref, pref_ab, pref_ba FROM audit_pairs"
    ).fetchall()
    db.close()
    n = {"decisive": 0, "right": 0, "wrong": 0, "tie": 0}
    n |= {"first": 0, "decided": 0, "flips": 0, "flips_first": 0}
    for sa, sb, missel, pref, ab, ba in rows:
        if sa != sb:
            n["decisive"] += 1
            if missel == 1:
                n["wrong"] += 1
            elif pref == ("A" if sa else "B"):
                n["right"] += 1
            else:
                n["tie"] += 1
        if ba is None:
            continue  # not judged in both orders
        for order, first in ((ab, "A"), (ba, "B")):
            if order in ("A", "B"):
                n["decided"] += 1
                n["first"] += order == first
        if ab in ("A", "B") and ba in ("A", "B") and ab != ba:
            n["flips"] += 1
            n["flips_first"] += ab == "A"
    return n


def test_runs_compare_shows_each_runs_split_tie_aware_rate_and_position_bias(
    isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    async def go() -> tuple[str, bool, dict[str, dict[str, str]], str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f6")
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            await press(pilot, "f")  # nothing compared yet: the drift table stays, a note says why
            assert not screen.query_one(RunFigures).display
            assert any("ctrl+t compares" in n for n in notices(app))
            screen.query_one("#r-b", Input).value = str(rejudged_copy)
            await press(pilot, "ctrl+t")
            summary = str(screen.query_one("#changes", Static).render())
            await press(pilot, "f")
            table = screen.query_one("#figures-table", FitTable)
            shown = table.display and table.region.height > 0
            rows = {k: {c: plain(v) for c, v in r.items()} for k, r in table.rows_data}
            bias = str(screen.query_one("#figures-bias", Static).render())
            return summary, shown, rows, bias

    summary, shown, rows, bias = asyncio.run(go())
    assert shown
    for side, out in (("A", run_copy), ("B", rejudged_copy)):
        n = hand_counts(out)
        row = rows[f"overall-{side}"]
        assert row["split"] == f"{n['right']}/{n['wrong']}/{n['tie']}"
        tie_aware = (n["wrong"] + n["tie"] / 2) / n["decisive"]
        assert row["tie"].startswith(f"{tie_aware * 100:.1f}% ")
        assert row["rate"].startswith(f"{n['wrong'] / n['decisive'] * 100:.1f}% ")
        assert "tie-aware overall: " in summary and f"{side} {tie_aware * 100:.1f}% " in summary
        first = n["first"] / n["decided"] * 100
        assert f"first position won {first:.1f}% ({n['first']}/{n['decided']})" in bias
        # the headline's first-position share carries its interval too (it had none)
        assert re.search(rf"{side} {first:.1f}% \[\d+\.\d, \d+\.\d\]", summary.split("first")[1])
        won = "of real order disagreements the first position won"
        if n["flips"]:
            flips = n["flips_first"] / n["flips"] * 100
            assert f"{won} {flips:.1f}% ({n['flips_first']}/{n['flips']})" in bias
        else:
            assert f"{won} n/a (none)" in bias
    assert rows["overall-A"]["bucket"] == "all"
    assert bias.count("unparsed orders") == 2
    # every bucket has a row for each run, the same buckets the drift table lists
    assert {k.rsplit("-", 1)[0] for k in rows} >= {"0", "overall"}

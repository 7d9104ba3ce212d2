"""The habits of the best terminal apps in every table: `/` filters, `s`/`S` sort, Home/End,
`y` copies the row's id and `Y` the table; a pair shows its trial and copies its id."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.pair import PairDetailScreen
from judgeaudit.tui.screens.pairs import PairsScreen
from judgeaudit.tui.widgets.fit_table import FitTable, plain
from tests.tui.helpers import SMALL, make_app, press, wait_until


def test_pairs_table_filters_sorts_jumps_and_copies(isolated: ProfileStore, run_copy: Path) -> None:
    async def go() -> dict[str, object]:
        seen: dict[str, object] = {}
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f4", "enter")
            screen = app.screen
            assert isinstance(screen, PairsScreen)
            table = screen.query_one(FitTable)
            await wait_until(pilot, lambda: table.row_count > 0, "the pairs")
            table.focus()
            seen["all"] = [k for k, _ in table.rows_data]
            seen["trials"] = {plain(r["trial"]) for _, r in table.rows_data}
            await press(pilot, "end")
            seen["end"] = table.cursor_row
            await press(pilot, "home")
            seen["home"] = table.cursor_row
            await press(pilot, "y")
            seen["copied"] = app.clipboard
            seen["highlighted"] = table.selected_key()
            needle = plain(table.rows_data[0][1]["task"])
            seen["needle"] = needle
            await press(pilot, "slash")
            await pilot.press(*needle)
            await press(pilot, "enter")
            seen["filtered"] = [
                [plain(c) for c in table.get_row_at(i)] for i in range(table.row_count)
            ]
            await press(pilot, "slash", "ctrl+u", "enter")  # empty: every row again
            seen["unfiltered"] = table.row_count
            await press(pilot, "s")  # by the first column (task)
            seen["sorted"] = [plain(table.get_row_at(i)[0]) for i in range(table.row_count)]
            await press(pilot, "S")
            seen["reversed"] = [plain(table.get_row_at(i)[0]) for i in range(table.row_count)]
            await press(pilot, "Y")
            seen["table"] = app.clipboard
            await press(pilot, "home", "enter")
            detail = app.screen
            assert isinstance(detail, PairDetailScreen)
            title = detail.query_one("#pair-title", Static)
            await wait_until(pilot, lambda: "loading" not in str(title.render()), "the pair")
            seen["title"] = str(title.render())
            seen["pair"] = detail.pair_id
            await press(pilot, "y")
            seen["pair_copied"] = app.clipboard
            await press(pilot, "c")
            seen["transcript"] = app.clipboard
            seen["shown_a"] = str(detail.query_one("#side-a", Static).render()).replace("\n", "")
        return seen

    seen = asyncio.run(go())
    rows = seen["all"]
    assert isinstance(rows, list) and len(rows) > 2
    assert seen["trials"] == {"t0"}, "the trial is a column"
    assert seen["end"] == len(rows) - 1 and seen["home"] == 0
    assert seen["copied"] == seen["highlighted"] and str(seen["copied"]).count("/") == 3
    filtered = seen["filtered"]
    assert isinstance(filtered, list) and 0 < len(filtered) < len(rows)
    assert all(any(str(seen["needle"]) in cell for cell in row) for row in filtered)
    assert seen["unfiltered"] == len(rows)
    tasks = seen["sorted"]
    assert isinstance(tasks, list) and tasks == sorted(tasks)
    assert seen["reversed"] == sorted(tasks, reverse=True)
    lines = str(seen["table"]).splitlines()
    assert lines[0].split("\t")[:2] == ["task", "trial"] and len(lines) == 1 + len(rows)
    pair = str(seen["pair"])
    task, trial = pair.split("/")[1:3]
    agent_a, agent_b = pair.split("/")[-1].split("~")
    assert str(seen["title"]).startswith(f"{task} {trial} ")
    assert f"A {agent_a} vs B {agent_b}" in str(seen["title"])
    assert seen["pair_copied"] == pair
    transcript = str(seen["transcript"])
    assert transcript.startswith("user: ") and "agent: " in transcript
    results = [x[5:] for x in transcript.splitlines() if x.startswith("  <- ")]
    if any(len(r) > 160 for r in results):  # cut on screen, and the cut says so; whole in the copy
        assert "…" in str(seen["shown_a"])
    db = sqlite3.connect(Path(run_copy) / "audit.db")
    assert db.execute("SELECT 1 FROM audit_pairs WHERE pair_id = ?", (pair,)).fetchone()
    db.close()


def test_a_filter_with_no_match_says_so_in_the_title(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """A filter matching nothing left the title saying `N pairs` over an empty table (the `no
    match` was a toast gone after 3 s): the title says what is shown until the filter changes."""

    async def go() -> tuple[str, str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f4", "enter")
            screen = app.screen
            assert isinstance(screen, PairsScreen)
            table = screen.query_one(FitTable)
            await wait_until(pilot, lambda: table.row_count > 0, "the pairs")
            title = screen.query_one("#pairs-title", Static)
            before = str(title.render())
            table.focus()
            await press(pilot, "slash")
            await pilot.press(*"xyz")
            await press(pilot, "enter")
            filtered = str(title.render())
            await press(pilot, "slash", "ctrl+u", "enter")
            return before, filtered, str(title.render())

    before, filtered, after = asyncio.run(go())
    total = before.split(": ", 1)[1].split(" pairs")[0]
    assert f"0 of {total} pairs match 'xyz'" in filtered, filtered
    assert after == before


def test_help_lists_the_keys_of_the_screen_it_is_opened_on(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """`?` on a bucket's pairs listed every place's keys but not the pairs list's own (`m`
    misselected only): the help opened there names that screen and its keys first."""

    async def go() -> str:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f4", "enter")
            assert isinstance(app.screen, PairsScreen)
            await press(pilot, "question_mark")
            return "\n".join(str(s.render()) for s in app.screen.query(Static))

    shown = asyncio.run(go())
    assert "Pairs (this screen)" in shown, shown
    assert "escape Back · m Misselected only" in shown.split("(this screen)")[1], shown

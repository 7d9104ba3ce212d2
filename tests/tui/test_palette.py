"""The command palette holds the main actions of every screen (issue 13, item 5)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette
from textual.containers import VerticalScroll
from textual.geometry import Region

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.judge_log import JudgeLog
from judgeaudit.tui.screens.modals import ConfirmDiff, KeyEntry
from judgeaudit.tui.screens.results import ResultsScreen
from judgeaudit.tui.screens.run import RunScreen
from tests.tui.helpers import (
    SIZE,
    SMALL,
    make_app,
    notices,
    palette,
    press,
    settle,
    until,
    wait_until,
)


async def hits_for(query: str, isolated: ProfileStore) -> list[str]:
    app = make_app(isolated)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+p")
        await pilot.press(*query)

        def listed() -> bool:
            screen = app.screen
            return (
                isinstance(screen, CommandPalette)
                and screen.query_one(CommandList).option_count > 0
            )

        await wait_until(pilot, listed, f"hits for {query!r}")
        hits = app.screen.query_one(CommandList)
        options = (hits.get_option_at_index(i) for i in range(hits.option_count))
        return [str(o.prompt).splitlines()[0] for o in options]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("switch", "Switch profile taotoken-claude"),
        ("set key", "Set key taotoken-sdk"),
        ("test", "Test profile local-sim"),
        ("run demo", "Run demo"),
        ("run spec", "Run spec…"),
        ("pause", "Pause/resume run"),
        ("cancel", "Cancel run"),
        ("open results", "Open results"),
        ("open run", "Open run…"),
        ("compare", "Compare…"),
        ("export review", "Export review…"),
        ("turn off", "Turn off claude"),
        ("gap", "Gap source…"),
        ("bins", "Bins…"),
        ("agent pairs", "Agent pairs"),
        ("judge log", "Judge log on/off"),
    ],
)
def test_palette_finds_the_main_actions(isolated: ProfileStore, query: str, expected: str) -> None:
    assert expected in asyncio.run(hits_for(query, isolated))


def test_palette_switch_opens_that_profiles_diff(isolated: ProfileStore) -> None:
    async def go() -> str:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await press(pilot, "f4")  # from another screen
            await palette(pilot, "switch taotoken-codex", "Switch profile taotoken-codex")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmDiff)
            return app.screen.title_text

    assert asyncio.run(go()) == "Switch codex to taotoken-codex?"


def test_palette_set_key_opens_the_key_dialog(isolated: ProfileStore) -> None:
    async def go() -> str:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await palette(pilot, "set key deepseek-sdk", "Set key deepseek-sdk")
            assert isinstance(app.screen, KeyEntry)
            return app.screen.key_name

    assert asyncio.run(go()) == "deepseek"


def test_palette_export_review_writes_the_sample(isolated: ProfileStore, run_copy: Path) -> None:
    async def go() -> None:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await palette(pilot, "export review", "Export review…")
            await settle(pilot)

    asyncio.run(go())
    lines = (run_copy / "review_sample.csv").read_text().splitlines()
    assert (
        lines[0]
        == "pair_id,task_id,agent_a,agent_b,human_success_a,human_success_b,human_pref,note"
    )
    assert len(lines) == 41  # blind, as the CLI's default


def test_palette_export_review_keeps_a_filled_in_sample(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """Found by a new user: "Export review…" replaced a sample holding labels, silently. The
    labels stay, and the app says why and what to do, in the line the CLI prints."""
    sample = run_copy / "review_sample.csv"
    header = "pair_id,stratum,task_id,agent_a,agent_b,judge_pref,success_a,success_b,"
    header += "human_success_a,human_success_b,human_pref,note\n"
    labelled = header + "p1,control,t1,a,b,A,1,0,1,0,A,\np2,control,t2,a,b,B,0,1,,,,looked\n"
    sample.write_text(labelled + "p3,control,t3,a,b,tie,1,1,,,,\n")
    kept = sample.read_bytes()

    async def go() -> list[str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await palette(pilot, "export review", "Export review…")
            await settle(pilot)
            return notices(app)

    shown = asyncio.run(go())
    assert sample.read_bytes() == kept
    refused = [line for line in shown if f"{sample} holds 2 rows with labels or notes" in line]
    assert refused, shown
    # the app has no --force: it says what to do in the app
    assert "--force" not in refused[0]
    assert refused[0].endswith("or move that file aside, then export again"), refused[0]


@pytest.mark.parametrize(
    ("query", "expect", "focused"),
    [("gap source", "Gap source…", "gap-source"), ("bins", "Bins…", "bins")],
)
def test_palette_results_controls_focus_there(
    isolated: ProfileStore, run_copy: Path, query: str, expect: str, focused: str
) -> None:
    async def go() -> tuple[object, str | None]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await palette(pilot, query, expect)
            await settle(pilot)
            return app.screen, app.focused.id if app.focused else None

    screen, focus = asyncio.run(go())
    assert isinstance(screen, ResultsScreen) and focus == focused


def test_palette_agent_pairs_scrolls_to_the_table_once_loaded(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """Asked for from another screen, before the report is built: the table is in view at 80×24."""

    async def go() -> tuple[float, Region, Region]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await palette(pilot, "agent pairs", "Agent pairs")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, ResultsScreen)
            await until(pilot, lambda: screen.loaded and not screen.jump_when_loaded, "the jump")
            body = screen.query_one("#results-body", VerticalScroll)
            # the scroll is animated: under load one settle read it before it moved (0.0)
            await until(pilot, lambda: body.scroll_y > 0, "the scroll to the table")
            await settle(pilot)
            table = screen.query_one("#agent-pairs-table")
            return body.scroll_y, body.region, table.region

    scrolled, body, table = asyncio.run(go())
    assert scrolled > 0 and body.y <= table.y and table.bottom <= body.bottom  # all of it shown


def test_palette_judge_log_hides_the_log(isolated: ProfileStore) -> None:
    async def go() -> tuple[bool, bool]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await palette(pilot, "judge log", "Judge log on/off")
            await settle(pilot)
            assert isinstance(app.screen, RunScreen)
            log = app.screen.query_one(JudgeLog)
            hidden = not (log.display and log.visible)  # invisible: no layout of the screen
            await palette(pilot, "judge log", "Judge log on/off")
            await settle(pilot)
            return hidden, log.display and log.visible

    hidden, shown_again = asyncio.run(go())
    assert hidden and shown_again

"""Many notes in the switch preview stay readable before ``y``: at 80x24 one long warning and six
notes filled the pinned area (14 rows, 7 more below), which could not take focus, so the last
notes were never on screen and ``y`` applied them unseen."""

from __future__ import annotations

import asyncio
import html

from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.modals import ConfirmDiff
from tests.tui.helpers import SMALL, make_app, press, settle
from tests.tui.test_switch_notes_pinned import on_screen

KEY = "sk-ant-api03-" + "Q" * 40
WARNING = "settings.json sets env.ANTHROPIC_BASE_URL in managed settings too, " * 3
NOTES = [
    f"note {i}: env.SOME_SETTING_{i} is removed and kept in the backup, {'x' * 50}"
    for i in range(6)
]


def dialog() -> ConfirmDiff:
    diff = "\n".join(f"+ line {i}" for i in range(40)) + f"\n- key {KEY[:4]}…{KEY[-4:]}"
    return ConfirmDiff("Switch to a-claude?", diff, [WARNING], NOTES)


def test_every_note_is_on_screen_or_reachable_by_keyboard(isolated: ProfileStore) -> None:
    async def go() -> tuple[set[int], list[bool], str]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            app.push_screen(dialog())
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, ConfirmDiff)
            pins = screen.query_one("#pinned")
            notes = list(screen.query("#pinned Static").results(Static))
            hint = screen.query_one("#pinned-more", Static)
            hints = [bool(hint.display) and hint.region.area > 0]
            shot = app.export_screenshot()
            hints.append(pins.has_focus)  # ↓ reads the notes at once
            screen.query_one("#no").focus()  # and tab comes back to them from the buttons
            seen: set[int] = set()
            for _ in range(40):  # the keys the hint names: tab to the notes, then down
                seen |= {i for i, n in enumerate(notes) if on_screen(n.region, pins.region)}
                if len(seen) == len(notes):
                    break
                await press(pilot, "down" if pins.has_focus else "tab")
                await settle(pilot)
            hints.append(bool(hint.display))  # read to the end: the hint goes
            return seen, hints, shot + app.export_screenshot()

    seen, hints, shots = asyncio.run(go())
    assert seen == set(range(7)), seen  # the warning and all six notes
    assert hints == [True, True, False]
    text = html.unescape(shots).replace("\xa0", " ")
    assert "more notes below — tab/↓ to read" in text
    assert KEY not in shots


def test_a_wider_screen_gives_the_arrows_back_to_the_diff(isolated: ProfileStore) -> None:
    async def go() -> list[tuple[bool, bool, bool]]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            app.push_screen(dialog())
            seen = []
            for size in (SMALL, (160, 50)):
                await pilot.resize_terminal(*size)
                await settle(pilot)
                pins, hint = app.screen.query_one("#pinned"), app.screen.query_one("#pinned-more")
                seen.append((pins.max_scroll_y > 0, pins.has_focus, bool(hint.display)))
            return seen

    assert asyncio.run(go()) == [(True, True, True), (False, False, False)]

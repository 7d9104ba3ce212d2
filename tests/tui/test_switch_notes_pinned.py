"""The switch preview pins its notes above the diff: a new user's Enter on a Claude profile
whose settings held an old ANTHROPIC_AUTH_TOKEN and a credential header showed the diff first,
and at 80x24 the notes (what is removed and kept, the header that moves) were below the fold,
so y applied without them ever being on screen."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widgets import Button, Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.modals import ConfirmDiff
from tests.tui.helpers import SIZE, SMALL, make_app, press, settle
from tests.tui.test_profiles_state import profiles
from tests.unit.test_off_after_edits import FULL, GATEWAY_KEY, OLD_TOKEN, add_profiles, settings


def on_screen(region: Region, viewport: Region) -> bool:
    """All of ``region`` inside what its container shows (a widget scrolled or cut off is not)."""
    return bool(region.area) and viewport.contains_region(region)


@pytest.mark.parametrize("size", [SMALL, SIZE, (120, 40)], ids=["80x24", "100x32", "120x40"])
def test_the_notes_are_on_screen_without_scrolling(
    isolated: ProfileStore, tmp_path: Path, size: tuple[int, int]
) -> None:
    settings(tmp_path).write_text(json.dumps(FULL, indent=2) + "\n")
    add_profiles(isolated)

    async def go() -> tuple[list[str], list[bool], bool, str]:
        app = make_app(isolated)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            assert profiles(app).select_profile("a-claude")
            await press(pilot, "enter")
            await settle(pilot)
            dialog = app.screen
            assert isinstance(dialog, ConfirmDiff)
            box, pins = (dialog.query_one(f"#{i}").region for i in ("confirm-diff", "pinned"))
            notes = list(dialog.query("#pinned Static").results(Static))
            seen = [on_screen(note.region, pins) and box.contains_region(pins) for note in notes]
            seen += [on_screen(b.region, box) for b in dialog.query(Button).results(Button)]
            diff = str(dialog.query_one("#diff Static", Static).render())
            return [str(n.render()) for n in notes], seen, "note:" in diff, app.export_screenshot()

    notes, seen, note_in_diff, shot = asyncio.run(go())
    flat = " ".join(" ".join(notes).split())
    assert "env.ANTHROPIC_AUTH_TOKEN" in flat and "x-gateway-key" in flat, flat
    assert all(seen), (notes, seen)  # every note and both buttons, without scrolling
    assert not note_in_diff  # said once, above the diff
    for text in (flat, shot):
        assert OLD_TOKEN not in text and GATEWAY_KEY not in text

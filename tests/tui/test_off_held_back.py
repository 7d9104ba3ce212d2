"""`profile off` that holds some of the user's values back (their saved base URL was edited
since) says so in the app as the CLI does: the confirmation's title and the status after it
(a review: the held-back line was the CLI's only, and the app's nothing-to-undo test was its
own). The line and the test are SwitchResult's (profiles/switch.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import use_profile
from judgeaudit.tui.screens import profiles as profiles_screen
from judgeaudit.tui.screens.modals import ConfirmDiff
from judgeaudit.tui.widgets.note import Note
from tests.tui.helpers import SMALL, make_app, press, settle
from tests.tui.test_profiles_state import profiles
from tests.unit.test_off_after_edits import (
    FULL,
    GATEWAY_KEY,
    OLD_TOKEN,
    _edit_base_url,
    add_profiles,
    settings,
)


def test_the_app_says_what_off_held_back(isolated: ProfileStore, tmp_path: Path) -> None:
    settings(tmp_path).write_text(json.dumps(FULL, indent=2) + "\n")
    add_profiles(isolated)
    use_profile(isolated, "a-claude")
    _edit_base_url(settings(tmp_path), "http://127.0.0.1:9")

    async def go() -> tuple[str, str]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            assert profiles(app).select_profile("a-claude")
            await press(pilot, "o")
            asked = app.screen
            assert isinstance(asked, ConfirmDiff)
            shown = "\n".join(str(w.render()) for w in asked.query(Static))
            await press(pilot, "y")
            said = str(profiles(app).query_one("#profiles-status", Static).render())
            return shown, said

    shown, said = asyncio.run(go())
    flat = " ".join(shown.split())
    assert "(your own settings come back but those held back: see the note)" in flat, flat
    assert "holds back your env.ANTHROPIC_AUTH_TOKEN" in flat
    assert " ".join(said.split()).startswith(
        "judgeaudit is off for claude: its keys removed, your values back but those held back "
        "(env.ANTHROPIC_AUTH_TOKEN, env.ANTHROPIC_CUSTOM_HEADERS; o again shows why and how to get "
        "them)"
    ), said
    for text in (shown, said):
        assert OLD_TOKEN not in text and GATEWAY_KEY not in text


def test_the_held_back_line_stays_when_done_lines_fade(
    isolated: ProfileStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The done-status fades (8 s) and took the held-back line with it while the preview that
    said which was closed: that line stays until the next message, and `o` again shows why."""
    monkeypatch.setattr(profiles_screen, "STATUS_FADE_S", 0.2)
    settings(tmp_path).write_text(json.dumps(FULL, indent=2) + "\n")
    add_profiles(isolated)
    use_profile(isolated, "a-claude")
    _edit_base_url(settings(tmp_path), "http://127.0.0.1:9")

    async def go() -> tuple[bool, str, str]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            screen = profiles(app)
            note = screen.query_one("#profiles-status", Note)
            screen.status("a done line")  # the control: a done line is gone after the fade
            await pilot.pause(0.6)
            faded = not note.display
            assert screen.select_profile("a-claude")
            await press(pilot, "o", "y")
            await pilot.pause(0.6)  # three fades
            said = str(note.render()) if note.display else ""
            await press(pilot, "o")
            asked = app.screen
            assert isinstance(asked, ConfirmDiff)
            shown = "\n".join(str(w.render()) for w in asked.query(Static))
            return faded, said, shown

    faded, said, shown = asyncio.run(go())
    assert faded
    assert "those held back (env.ANTHROPIC_AUTH_TOKEN, env.ANTHROPIC_CUSTOM_HEADERS;" in " ".join(
        said.split()
    ), said
    assert "holds back your env.ANTHROPIC_AUTH_TOKEN" in " ".join(shown.split()), shown

"""A switch refused onto a read-only settings.json: at 80×24 the status line cut the refusal
after three lines ("…and run the command again;", so "nothing was changed" was lost), and it
stayed through the backups, add and key dialogs after the file was made writable (a new user).
The whole refusal shows; a problem said before a dialog opened is gone when it closes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.text import Text

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.note import Note
from tests.tui.helpers import SMALL, make_app, press, settle
from tests.tui.test_state import profiles, select, status


def test_a_refusal_shows_whole_at_80x24_and_goes_after_a_dialog(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    live = tmp_path / "claude" / "settings.json"
    live.write_text('{"theme": "dark"}\n')
    live.chmod(0o444)

    async def go() -> tuple[str, int, int, str]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await select(pilot, app, "taotoken-claude")
            await press(pilot, "u")
            said = status(app)
            note = profiles(app).query_one("#profiles-status", Note)
            width = note.content_region.width
            lines, shown = len(Text(said).wrap(app.console, width)), note.content_region.height
            live.chmod(0o644)  # fixed outside the app
            await press(pilot, "b")  # the backups dialog, read, closed
            await settle(pilot)
            await press(pilot, "escape")
            await settle(pilot)
            return said, lines, shown, status(app)

    said, lines, shown, after = asyncio.run(go())
    assert said.startswith("cannot switch to taotoken-claude: ") and "nothing was changed" in said
    assert lines > 3 and shown >= lines, (lines, shown)  # over the old 3 lines, none cut
    assert after == ""

"""The Profiles screen after the eighteenth session's new-user trial: editing the active profile
says how to apply it and marks the row, the key dialog names the active profile that reads the
key, the base URL column shows what Claude Code is given, and a done-message fades."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from judgeaudit.profiles import secrets
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import use_profile
from judgeaudit.tui.screens import profiles as profiles_screen
from judgeaudit.tui.screens.modals import ConfirmDiff
from judgeaudit.tui.widgets.fit_table import FitTable, plain
from tests.tui.helpers import SIZE, make_app, press, settle
from tests.tui.test_profiles_state import problems, profiles
from tests.tui.test_state import select, status


def test_editing_the_active_profile_says_how_to_apply_it(isolated: ProfileStore) -> None:
    use_profile(isolated, "taotoken-claude")
    edited = replace(isolated.get("taotoken-claude"), base_url="http://127.0.0.1:18802")

    async def go() -> tuple[str, str, str]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            profiles(app).saved(edited)  # what the form's Save hands the screen
            await settle(pilot)
            rows = dict(profiles(app).query_one(FitTable).rows_data)
            return status(app), plain(rows["taotoken-claude"]["active"]), problems(app)

    said, marker, shown = asyncio.run(go())
    assert "`judgeaudit profile use taotoken-claude` applies the change" in said
    assert marker == "*!"
    assert "no longer holds what taotoken-claude writes" in shown


def _key_dialog_warnings(isolated: ProfileStore) -> list[str]:
    """What the K (key delete) dialog of taotoken-claude's key warns."""

    async def go() -> list[str]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await select(pilot, app, "taotoken-claude")
            await press(pilot, "K")
            dialog = app.screen
            assert isinstance(dialog, ConfirmDiff)
            return dialog.warnings

    return asyncio.run(go())


def test_the_key_dialog_names_the_active_profile_that_reads_it(isolated: ProfileStore) -> None:
    secrets.set_key("taotoken", "sk-test-taotoken-1234")
    use_profile(isolated, "taotoken-claude")

    notes = _key_dialog_warnings(isolated)
    assert any("taotoken-claude is active for claude" in note for note in notes), notes


def test_the_key_dialog_names_a_project_binding_that_reads_it(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """The K dialog asks the owner `key delete` asks (``active.key_users``): a project
    binding's settings file is named too (a review, nineteenth session)."""
    secrets.set_key("taotoken", "sk-test-taotoken-1234")
    project = tmp_path / "proj"
    project.mkdir()
    use_profile(isolated, "taotoken-claude", project_dir=project)

    notes = _key_dialog_warnings(isolated)
    settings = project / ".claude" / "settings.local.json"
    assert any(f"taotoken-claude is bound to {project}" in n and str(settings) in n for n in notes)


def test_base_url_column_shows_what_claude_code_is_given(isolated: ProfileStore) -> None:
    async def go() -> str:
        app = make_app(isolated)
        async with app.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            rows = dict(profiles(app).query_one(FitTable).rows_data)
            return plain(rows["deepseek-claude"]["base_url"])

    assert asyncio.run(go()) == "https://api.deepseek.com/anthropic"


def test_a_done_message_fades(isolated: ProfileStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Polled, not slept: under CI load the save's worker took longer than a fixed pause, so
    the message had come and gone before the test looked (a flake)."""
    monkeypatch.setattr(profiles_screen, "STATUS_FADE_S", 1.0)

    async def until(pilot: Any, seen: Callable[[], bool]) -> bool:
        deadline = time.monotonic() + 20
        while not seen() and time.monotonic() < deadline:
            await pilot.pause(0.05)
        return seen()

    async def go() -> tuple[bool, bool, bool]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = profiles(app)
            note = screen.query_one("#profiles-status", Static)
            screen.saved(isolated.get("taotoken-sdk"))
            shown = await until(
                pilot, lambda: note.display and "taotoken-sdk" in str(note.render())
            )
            faded = await until(pilot, lambda: not note.display)
            screen.status("not saved: broken", bad=True)
            await pilot.pause(1.5)
            return shown, faded, note.display

    shown, faded, problem_stays = asyncio.run(go())
    assert shown and faded and problem_stays

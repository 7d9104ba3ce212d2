"""The Profiles screen says what the files say: `profile off` (from the screen or the CLI), the
doctor's warnings and profile files that do not load, read again each time the screen is shown."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from textual.widgets import Static

from judgeaudit.cli import main
from judgeaudit.profiles import active
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import use_profile
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.screens.modals import ConfirmDiff
from judgeaudit.tui.screens.profiles import ProfilesScreen
from judgeaudit.tui.widgets.fit_table import FitTable
from tests.tui.helpers import SIZE, make_app, palette, press, settle

USERS_OWN = {"hooks": {"Stop": []}, "theme": "dark", "env": {"MY_OWN": "1"}}


def profiles(app: JudgeAuditApp) -> ProfilesScreen:
    screen = app.get_screen("profiles")
    assert isinstance(screen, ProfilesScreen)
    return screen


def marked(app: JudgeAuditApp) -> list[str]:
    table = profiles(app).query_one(FitTable)
    return [key for key, row in table.rows_data if str(row["active"]) == "*"]


def problems(app: JudgeAuditApp) -> str:
    note = profiles(app).query_one("#keyring-status", Static)
    return str(note.render()) if note.display else ""


def switched_in(store: ProfileStore, tmp_path: Path) -> Path:
    settings = tmp_path / "claude" / "settings.json"
    settings.write_text(json.dumps(USERS_OWN, indent=2) + "\n")
    use_profile(store, "taotoken-claude")
    assert "apiKeyHelper" in json.loads(settings.read_text())
    return settings


@pytest.mark.parametrize("how", ["key", "palette"])
def test_off_on_the_screen_gives_the_users_settings_back(
    isolated: ProfileStore, tmp_path: Path, how: str
) -> None:
    settings = switched_in(isolated, tmp_path)

    async def go() -> tuple[list[str], str, list[str], str]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            before = marked(app)
            if how == "key":
                assert profiles(app).select_profile("taotoken-claude")
                await press(pilot, "o")
            else:
                await palette(pilot, "turn off claude", "Turn off claude")
                await settle(pilot)
            assert isinstance(app.screen, ConfirmDiff)
            diff = str(app.screen.query_one("#diff Static", Static).render())
            await press(pilot, "y")
            said = str(profiles(app).query_one("#profiles-status", Static).render())
            return before, diff, marked(app), said

    before, diff, after, said = asyncio.run(go())
    assert before == ["taotoken-claude"] and after == []
    assert "apiKeyHelper" in diff and "judgeaudit is off for claude" in said
    assert json.loads(settings.read_text()) == USERS_OWN
    assert "claude" not in active.here(isolated.state())


def test_cli_profile_off_shows_when_the_screen_is_shown_again(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    switched_in(isolated, tmp_path)

    async def go() -> tuple[list[str], list[str]]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            before = marked(app)
            assert main(["profile", "off", "claude"]) == 0  # another terminal, same files
            await press(pilot, "f2", "f1")
            return before, marked(app)

    before, after = asyncio.run(go())
    assert before == ["taotoken-claude"] and after == []


def test_doctor_warnings_and_broken_files_are_listed(
    isolated: ProfileStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_USE_BEDROCK", "1")
    broken = isolated.user_dir / "half-written.toml"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text('name = "half-written"\napp = "claude\n')

    async def go() -> tuple[str, list[str], str]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            first = problems(app)
            broken.unlink()  # fixed meanwhile: shown again, the line is gone
            monkeypatch.delenv("CLAUDE_CODE_USE_BEDROCK")
            await press(pilot, "f2", "f1")
            rows = [key for key, _ in profiles(app).query_one(FitTable).rows_data]
            return first, rows, problems(app)

    first, rows, fixed = asyncio.run(go())
    assert "half-written.toml" in first and "fix or remove that file" in first
    assert "doctor: " in first and "CLAUDE_CODE_USE_BEDROCK is set" in first
    assert "taotoken-claude" in rows  # a broken file never hides the others
    assert fixed == ""


def test_off_with_nothing_to_undo_says_so(isolated: ProfileStore) -> None:
    async def go() -> tuple[bool, str]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert profiles(app).select_profile("taotoken-codex")
            await press(pilot, "o")
            said = str(profiles(app).query_one("#profiles-status", Static).render())
            return isinstance(app.screen, ConfirmDiff), said

    dialog, said = asyncio.run(go())
    assert not dialog and "codex: judgeaudit changed nothing to undo" in said

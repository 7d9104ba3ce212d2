"""Backups at 80×24: rows that tell backups apart, a preview, a confirmation before a restore;
and a restore over an unreadable settings.json keeps that file beside itself and goes on."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest
from textual.widgets import Static

from judgeaudit.cli import main
from judgeaudit.profiles import backups
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.backups_dialog import BackupPicker
from judgeaudit.tui.screens.modals import ConfirmDiff
from judgeaudit.tui.widgets.fit_table import FitTable, plain
from tests.tui.helpers import SMALL, make_app, press, settle
from tests.tui.test_state import select, status

CORRUPT = b'{"hooks": [,]}'


async def two_switches(pilot: object, app: object) -> None:
    await settle(pilot)  # type: ignore[arg-type]
    for name in ("taotoken-claude", "deepseek-claude"):
        await select(pilot, app, name)  # type: ignore[arg-type]
        await press(pilot, "u", "y")  # type: ignore[arg-type]


def oldest_backup_shown(isolated: ProfileStore, answer: str) -> tuple[str, str]:
    """Two switches in the app at 80×24, then the Backups dialog: the oldest backup's preview
    and the restore confirmation's text, answered with ``answer``."""

    async def go() -> tuple[str, str]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await two_switches(pilot, app)
            await press(pilot, "b")
            picker = app.screen
            assert isinstance(picker, BackupPicker)
            await press(pilot, "down")  # the oldest: the user's file before any switch
            preview = str(picker.query_one("#backup-preview", Static).render())
            await press(pilot, "enter")
            asked = app.screen
            assert isinstance(asked, ConfirmDiff)
            body = "\n".join(str(w.render()) for w in asked.query(Static))
            await press(pilot, answer)
            return preview, body

    return asyncio.run(go())


def test_backups_dialog_at_80x24_previews_and_asks(isolated: ProfileStore, tmp_path: Path) -> None:
    settings = tmp_path / "claude" / "settings.json"
    settings.write_text('{"theme": "dark"}\n')

    async def go() -> tuple[list[list[str]], str, bool, bytes, str]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await two_switches(pilot, app)
            await press(pilot, "b")
            picker = app.screen
            assert isinstance(picker, BackupPicker)
            table = picker.query_one(FitTable)
            shown = [[plain(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
            shown.insert(0, [plain(c.label) for c in table.columns.values()])
            await press(pilot, "down")  # the oldest: the file before any switch
            preview = str(picker.query_one("#backup-preview", Static).render())
            await press(pilot, "enter")
            asked = isinstance(app.screen, ConfirmDiff)
            before = settings.read_bytes()  # nothing restored yet
            await press(pilot, "y")
            return shown, preview, asked, before, status(app)

    (header, *rows), preview, asked, before, said = asyncio.run(go())
    # as the CLI says it: taken before switching to deepseek-claude (it holds taotoken-claude)
    assert "taken before" in header and rows[0][header.index("taken before")] == (
        "switch to deepseek-claude"
    )
    assert len(rows) == 2 and len({tuple(r) for r in rows}) == 2, "rows tell backups apart"
    for row in rows:
        assert all("…" not in cell for cell in row), row  # nothing cut at 80 columns
    assert str(tmp_path / "claude" / "settings.json") in preview and '"theme": "dark"' in preview
    assert asked and json.loads(before) != {"theme": "dark"}, "Enter only asked"
    assert "restored" in said
    assert json.loads(settings.read_text()) == {"theme": "dark"}


def test_restore_over_an_unreadable_settings_json_keeps_it_aside(
    isolated: ProfileStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "claude" / "settings.json"
    settings.write_text('{"theme": "dark"}\n')

    async def go() -> None:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await two_switches(pilot, app)

    asyncio.run(go())
    oldest = backups.list_backups(isolated)[0]
    settings.write_bytes(CORRUPT)
    assert main(["profile", "restore", oldest.id]) == 0
    said = capsys.readouterr().out
    assert json.loads(settings.read_text()) == {"theme": "dark"}
    aside = [p for p in settings.parent.iterdir() if ".unreadable-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes() == CORRUPT
    assert stat.S_IMODE(aside[0].stat().st_mode) == 0o600
    assert f"kept as {aside[0]}" in said

    settings.write_bytes(CORRUPT)  # and from the app

    async def in_app() -> str:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await press(pilot, "b")
            picker = app.screen
            assert isinstance(picker, BackupPicker)
            table = picker.query_one(FitTable)
            table.move_cursor(row=table.get_row_index(oldest.id))
            await press(pilot, "enter", "y")
            return status(app)

    said = asyncio.run(in_app())
    assert "restored" in said and "unreadable file is kept as" in said
    assert json.loads(settings.read_text()) == {"theme": "dark"}


#: the user's own values in their settings.json, nothing of judgeaudit's (a new user's trial)
OWN_OPENAI = "sk-proj-" + "Q7wXb2Lm9Tz4" * 3
OWN_GITHUB = "ghp_" + "R5tYu8Io2Pa6Sd3Fg7" * 2


def test_backups_dialog_masks_your_own_keys_and_the_backup_gives_them_back(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """The CLI's diff masked both values; the Backups dialog showed them in full in its preview
    and in the restore confirmation. Both mask as the diff does now; the backup files keep the
    values (0600), so the restore gives the file back as it was."""
    from judgeaudit.redact import mask

    settings = tmp_path / "claude" / "settings.json"
    mine = {"theme": "dark", "env": {"OPENAI_API_KEY": OWN_OPENAI, "GITHUB_TOKEN": OWN_GITHUB}}
    original = json.dumps(mine, indent=2) + "\n"
    settings.write_text(original)

    preview, body = oldest_backup_shown(isolated, "y")
    for shown in (preview, body):
        assert OWN_OPENAI not in shown and OWN_GITHUB not in shown, shown
        assert f'"OPENAI_API_KEY": "{mask(OWN_OPENAI)}"' in shown, shown
    assert f'"GITHUB_TOKEN": "{mask(OWN_GITHUB)}"' in body
    kept = sorted((tmp_path / "cfg").rglob("*.bak"))
    assert kept and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in kept)
    assert any(p.read_text() == original for p in kept)  # the user's file, whole
    assert settings.read_text() == original  # restored byte for byte, their values included


def test_a_bidi_control_in_a_settings_value_is_shown_not_obeyed(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """A U+202E in the user's settings.json (it reverses what follows it on screen) reached the
    switch's confirmation, the backup's preview and the restore confirmation raw; each shows
    ``\\u202e`` now, and the restore gives the file back with the character in it."""
    settings = tmp_path / "claude" / "settings.json"
    original = '{"theme": "dark\u202ekrow"}\n'
    settings.write_text(original)

    async def go() -> list[str]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await select(pilot, app, "taotoken-claude")
            await press(pilot, "u")
            assert isinstance(app.screen, ConfirmDiff)
            seen = ["\n".join(str(w.render()) for w in app.screen.query(Static))]
            await press(pilot, "y")
            await press(pilot, "b")
            picker = app.screen
            assert isinstance(picker, BackupPicker)
            seen.append(str(picker.query_one("#backup-preview", Static).render()))
            await press(pilot, "enter")
            assert isinstance(app.screen, ConfirmDiff)
            seen.append("\n".join(str(w.render()) for w in app.screen.query(Static)))
            await press(pilot, "y")
            return seen

    for shown in asyncio.run(go()):
        assert "\u202e" not in shown and '"dark\\u202ekrow"' in shown, shown
    assert settings.read_text() == original


def test_restoring_a_backup_the_file_already_equals_says_so_in_the_app(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """The app said "restored" of a restore that had done nothing (a new user): the second
    restore of one backup says the file already equals it and nothing was changed."""
    settings = tmp_path / "claude" / "settings.json"
    settings.write_text('{"theme": "dark"}\n')

    async def go() -> list[str]:
        app = make_app(isolated)
        said = []
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await select(pilot, app, "taotoken-claude")
            await press(pilot, "u", "y")
            await press(pilot, "b", "enter", "y")  # the only backup: the file before the switch
            said.append(status(app))
            await press(pilot, "b", "down", "enter", "y")  # that one again (newest first)
            said.append(status(app))
        return said

    first, second = asyncio.run(go())
    assert first.startswith("restored ") and "nothing was changed" not in first
    assert second.startswith(f"{settings} already equals its backup (claude-"), second
    assert second.endswith("): nothing was changed")
    assert settings.read_text() == '{"theme": "dark"}\n'

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

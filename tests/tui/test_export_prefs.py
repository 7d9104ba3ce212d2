"""Export preferences from the app (issue 25): the palette opens the dialog on the Results
screen, the export writes the file and its card, and a refusal stays in the dialog."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from textual.widgets import Checkbox, Select

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.export_prefs import ExportPreferences
from judgeaudit.tui.widgets.field import Field
from judgeaudit.tui.widgets.note import Note
from tests.tui.helpers import SMALL, make_app, palette, press, settle, wait_until


def test_palette_exports_preferences_with_a_card(isolated: ProfileStore, run_copy: Path) -> None:
    dest = run_copy / "preferences.jsonl.agree.jsonl"

    async def go() -> tuple[str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await palette(pilot, "export preferences", "Export preferences…")
            await wait_until(pilot, lambda: isinstance(app.screen, ExportPreferences), "dialog")
            dialog = app.screen
            dialog.query_one("#prefs-format", Select).value = "openai"
            dialog.query_one("#prefs-labels", Select).value = "agree"
            await settle(pilot)
            path = dialog.query_one("#prefs-path", Field).value
            assert path.endswith("preferences.openai.agree.jsonl")
            dialog.query_one("#prefs-format", Select).value = "jsonl"
            await settle(pilot)
            assert dialog.query_one("#prefs-path", Field).value == str(dest)
            await press(pilot, "ctrl+s")
            await settle(pilot)
            await wait_until(pilot, lambda: not isinstance(app.screen, ExportPreferences), "done")
            # again: the file exists, so the dialog says so and stays open
            await press(pilot, "x")
            await wait_until(pilot, lambda: isinstance(app.screen, ExportPreferences), "dialog")
            second = app.screen
            second.query_one("#prefs-format", Select).value = "jsonl"
            second.query_one("#prefs-labels", Select).value = "agree"
            await settle(pilot)
            await press(pilot, "ctrl+s")
            await settle(pilot)
            refused = str(second.query_one("#prefs-note", Note).render())
            second.query_one("#prefs-force", Checkbox).value = True
            await press(pilot, "ctrl+s")
            await settle(pilot)
            await wait_until(pilot, lambda: not isinstance(app.screen, ExportPreferences), "done")
            return refused, app.screen.id or ""

    refused, screen = asyncio.run(go())
    assert 'exists; tick "replace"' in refused
    assert screen == "results"
    card = json.loads((run_copy / "preferences.jsonl.agree.card.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in dest.read_text(encoding="utf-8").splitlines()]
    assert card["rows"] == len(rows) > 0 and card["labels"] == "agree"
    assert all(r["judge_agrees"] is True and r["trajectory_a"]["events"] for r in rows)

"""Export preferences from the app (issue 25): the palette opens the dialog on the Results
screen, the export writes the file and its card, and a refusal stays in the dialog."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from textual.widgets import Checkbox, Select

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.export_prefs import ExportPreferences
from judgeaudit.tui.widgets.field import Field
from judgeaudit.tui.widgets.note import Note
from tests.tui.helpers import SMALL, make_app, notices, palette, press, settle, wait_until


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


def test_the_app_says_which_labelled_pairs_an_export_left_out(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """Two stored labels mark one conversation both ways: the CLI names the pairs it left out
    on stderr; the app said nothing of them. It now shows the CLI's line as a warning."""
    db = sqlite3.connect(run_copy / "audit.db")
    one, two = db.execute(  # two decisive pairs sharing side A's conversation
        "SELECT p.pair_id, q.pair_id FROM audit_pairs p JOIN audit_pairs q"
        " ON q.run_id = p.run_id AND q.task_id = p.task_id AND q.trial = p.trial"
        " AND q.agent_a = p.agent_a AND q.pair_id > p.pair_id"
        " WHERE p.success_a != p.success_b AND q.success_a != q.success_b"
        " ORDER BY p.pair_id, q.pair_id LIMIT 1"
    ).fetchone()
    db.executemany(
        "INSERT INTO human_labels (pair_id, human_success_a, human_success_b) VALUES (?, ?, ?)",
        [(one, 1, 0), (two, 0, 1)],
    )
    db.commit()
    db.close()

    toasts = _exported_toasts(isolated, run_copy, "#prefs-labels", "state")
    assert (
        f"left out 2 pair(s) whose human label marks a conversation succeeded that another "
        f"pair's label marks failed (or the reverse): {one}, {two} (all listed in the card); "
        "give each conversation one mark with judgeaudit review import"
    ) in toasts, toasts
    # the notice's summary is the CLI's line: the left-out pairs counted with their reason
    assert any("; 2 decisive pairs left out (2 human_marks_disagree) and " in t for t in toasts)


def test_the_app_says_trl_keeps_the_pairs_openai_skips(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """The app's openai export said "N skipped by the format" and nothing of the trl format,
    which keeps them: its notice is the CLI's line, which says so (`pref_card_text.trl_keeps`)."""
    dest = run_copy / "preferences.openai.state.jsonl"

    toasts = _exported_toasts(isolated, run_copy, "#prefs-format", "openai")
    card = json.loads(dest.with_suffix(".card.json").read_text(encoding="utf-8"))
    kept = card["skipped"]["diverge_before_last_assistant_turn"]["kept_by_trl"]
    assert kept > 0
    assert any(
        f"diverge_before_last_assistant_turn); --format trl keeps {kept} of them "
        "(whole conversations); data card " in t
        for t in toasts
    ), toasts


def _exported_toasts(isolated: ProfileStore, run_copy: Path, field: str, value: str) -> list[str]:
    """The export dialog from the palette at 80×24, ``field`` set to ``value``, ctrl+s: the
    notices it left."""

    async def go() -> list[str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await palette(pilot, "export preferences", "Export preferences…")
            await wait_until(pilot, lambda: isinstance(app.screen, ExportPreferences), "dialog")
            app.screen.query_one(field, Select).value = value
            await settle(pilot)
            await press(pilot, "ctrl+s")
            await wait_until(pilot, lambda: not isinstance(app.screen, ExportPreferences), "done")
            await settle(pilot)
            return notices(app)

    return asyncio.run(go())

"""Review: blind by default (no anchoring on the judge), labels read as words after a restart,
a key that clears a pair's labels, a note, and a footer that reads at 80 columns."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.review import ReviewScreen
from tests.tui.helpers import SIZE, SMALL, make_app, press


def head(app: object) -> str:
    return str(app.screen.query_one("#review-head", Static).render())  # type: ignore[attr-defined]


def labels(out: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(out / "audit.db")
    rows = db.execute(
        "SELECT human_success_a, human_success_b, human_pref, note FROM human_labels"
    ).fetchall()
    db.close()
    return rows


def test_review_is_blind_first_and_labels_read_as_words(
    isolated: ProfileStore, run_copy: Path
) -> None:
    async def go() -> tuple[str, str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5")
            assert isinstance(app.screen, ReviewScreen)
            blind = head(app)
            await press(pilot, "j")
            shown = head(app)
            await press(pilot, "1", "4", "a")
            return blind, shown, head(app)

    blind, shown, labelled = asyncio.run(go())
    assert "judge prefers" not in blind and "hidden" in blind
    assert "judge prefers" in shown and "success check " in shown
    assert "A ok, B fail, prefer A (" in labelled

    async def restart() -> str:  # a new app reads the labels back from the database
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5")
            return head(app)

    again = asyncio.run(restart())
    assert "A ok, B fail, prefer A (" in again and "1.0" not in again and "0.0" not in again


def test_review_note_and_clear(isolated: ProfileStore, run_copy: Path) -> None:
    async def go() -> tuple[list[tuple[object, ...]], str, list[tuple[object, ...]], str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5", "2", "e")
            await pilot.press(*"tool output contradicts")
            await press(pilot, "enter")
            noted = labels(run_copy)
            with_note = head(app)
            await press(pilot, "x")
            return noted, with_note, labels(run_copy), head(app)

    noted, with_note, cleared, after = asyncio.run(go())
    assert noted == [(0, None, None, "tool output contradicts")]
    assert "note: tool output contradicts" in with_note
    assert cleared == [] and "your labels: A -, B -, prefer -" in after


def test_review_footer_names_each_key_at_80_columns(isolated: ProfileStore, run_copy: Path) -> None:
    async def go() -> str:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f5")
            footer = app.screen.query_one("Footer")
            return " ".join(
                str(k.render()) for k in footer.query("FooterKey") if k.region.right <= 80
            )

    footer = asyncio.run(go())
    for words in ("1-4 A/B ok/fail", "a/b/t", "Clear", "Note", "n/p Next", "? Help"):
        assert words in footer, footer

"""Review: blind by default (no anchoring on the judge), labels read as words after a restart,
a key that clears a pair's labels, a note, and a footer that reads at 80 columns."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.review import ReviewScreen
from tests.tui.helpers import SIZE, SMALL, make_app, notices, press, wait_until


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


def test_review_warns_when_the_label_saved_contradicts_itself(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """A ok, B failed, then "prefer B": `review import` would refuse that label; the app stores
    it as typed but says so at once, naming the pair, and its figures say it is left out."""

    async def go() -> tuple[str, list[str], list[str], str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5", "1", "4", "a")
            agreeing = notices(app)
            await press(pilot, "b")
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and screen.data is not None
            pair_id = str(screen.data.items[screen.index]["pair_id"])
            toasts = notices(app)
            assert any("contradicts" in t for t in toasts), toasts  # at once, not later
            await wait_until(
                pilot,
                lambda: "left out" in str(screen.query_one("#review-figures", Static).render()),
                "the figures without the label",
            )
            return pair_id, agreeing, toasts, str(screen.query_one("#review-figures").render())

    pair_id, agreeing, toasts, figures = asyncio.run(go())
    assert not any("contradicts" in t for t in agreeing)
    warned = [t for t in toasts if "contradicts" in t]
    assert len(warned) == 1, toasts
    assert warned[0].startswith(f"{pair_id}: label saved, but human_pref B contradicts ")
    assert "by those marks A succeeded and B failed" in warned[0]
    assert labels(run_copy) == [(1, 0, "B", None)]  # stored as typed: the next key may fix it
    assert "1 labelled pair left out of these figures" in figures and pair_id in figures


def test_review_refuses_a_mark_that_contradicts_another_pair_of_the_conversation(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """Review saved through a path without `review import`'s one-mark-per-conversation check:
    A marked failed here while another pair showing A's same conversation holds "ok" was
    stored. Now the save is refused with the same line, and nothing is written."""
    from judgeaudit.audit.store.labels import save_human_labels

    async def go() -> tuple[str, list[str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5")
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and screen.data is not None
            item = screen.data.items[screen.index]
            db = sqlite3.connect(run_copy / "audit.db")
            (other,) = db.execute(
                "SELECT q.pair_id FROM audit_pairs p JOIN audit_pairs q ON q.run_id = p.run_id"
                " AND q.task_id = p.task_id AND q.trial = p.trial AND q.agent_a = p.agent_a"
                " AND q.pair_id != p.pair_id WHERE p.pair_id = ? LIMIT 1",
                (item["pair_id"],),
            ).fetchone()
            db.close()
            save_human_labels(
                run_copy / "audit.db",
                [{"pair_id": other, "human_success_a": 1, "human_success_b": None,
                  "human_pref": None}],
            )  # fmt: skip
            await press(pilot, "2")  # A failed, against the stored "ok"
            await wait_until(
                pilot,
                lambda: any("not saved" in n for n in notices(app)),
                "the refusal",
            )
            return str(other), notices(app)

    other, toasts = asyncio.run(go())
    refused = [t for t in toasts if "not saved" in t]
    assert refused[0].startswith("label not saved: Review: pair "), refused
    assert f"contradicts a label stored before (pair {other} human_success_a 1)" in refused[0]
    assert "label its pair again on Review first" in refused[0]
    assert labels(run_copy) == [(1, None, None, None)]  # only the other pair's stored mark


def test_a_note_on_a_contradicting_label_says_the_contradiction_once(
    isolated: ProfileStore, run_copy: Path
) -> None:
    """A ok, B failed, prefer B (warned), then a note: the note's save showed the same warning
    again, two toasts on screen for one contradiction. Corrected and made again, it is said
    again."""

    async def go() -> tuple[list[str], list[str]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "f5", "1", "4", "b", "e")
            await pilot.press(*"why B")
            await press(pilot, "enter")
            noted = notices(app)
            await press(pilot, "a", "b")  # corrected, then the same contradiction again
            return noted, notices(app)

    noted, again = asyncio.run(go())
    assert labels(run_copy) == [(1, 0, "B", "why B")]
    assert len([t for t in noted if "contradicts" in t]) == 1, noted
    assert len([t for t in again if "contradicts" in t]) == 2, again

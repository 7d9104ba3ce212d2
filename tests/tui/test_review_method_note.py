"""The Review screen's method note, whole at 120x40 and at 80x24 (a new user saw it end
mid-sentence at both: the figures' box cut it at eight lines). The figures keep the suggested
sample size and a pointer to `m`, which shows the note whole: how each 95% interval is drawn, or
why one has none yet."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.review_figures import METHOD_KEY, methods, needs_text
from judgeaudit.tui.screens.review import ReviewScreen
from judgeaudit.tui.screens.review_method import ReviewMethod
from tests.tui.helpers import make_app, painted, press


def folded(rows: list[str]) -> str:
    return " ".join(" ".join(rows).split())


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_the_method_note_reads_whole(
    isolated: ProfileStore, run_copy: Path, size: tuple[int, int]
) -> None:
    async def go() -> tuple[str, list[str], str, str, list[tuple[str, str]], str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=size) as pilot:
            await press(pilot, "f5")
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            for pref in "abba":  # four pairs labelled: the figures and their method shown
                await press(pilot, "1", "3", pref, "n")
            assert screen.figures is not None
            shown = folded(painted(app))
            figures = str(screen.query_one("#review-figures", Static).render()).splitlines()
            await press(pilot, "m")
            assert isinstance(app.screen, ReviewMethod)
            await press(pilot, "end")  # the note scrolls where it is longer than the screen
            note = str(app.screen.query_one("#review-method-text", Static).render())
            bottom = folded(painted(app))
            await press(pilot, "escape")
            assert isinstance(app.screen, ReviewScreen)  # Esc: back to the figures
            return shown, figures, note, bottom, methods(screen.figures), needs_text(screen.figures)

    shown, figures, note, bottom, said, needs = asyncio.run(go())
    # every line of the figures is painted whole, the suggested size and the pointer last
    for line in figures:
        assert " ".join(line.split()) in shown, (line, shown)
    assert figures[-2:] == [needs, f"{METHOD_KEY} and why one has none"], figures
    # the note: each comparison's method to its last word, the suggested size, the way back
    assert len(said) == 2 and note.startswith("95% intervals")
    for name, how in said:
        assert f"{name}, weighted to the audit: {how}." in " ".join(note.split("\n")), note
    assert note.endswith(f"{needs}.")
    assert "Esc (or m) back" in bottom, bottom

"""The app's Review screen and `judgeaudit review export` draw one sample: the same pairs in
the same order for the same run (both call ``analysis.review.sample`` with the same strata and
seed, shuffled by ``shuffled`` as a blind sample is), and one size unless asked
(``review.SAMPLE_N``: it was written three times, the CLI's --n, the screen's and the palette's)."""

from __future__ import annotations

import asyncio
import csv
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from judgeaudit.analysis import review
from judgeaudit.cli import main
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.review import ReviewScreen
from tests.cli_helpers import cli_ok
from tests.tui.helpers import SIZE, make_app, press, settle


def app_sample(store: ProfileStore, out: Path) -> list[str]:
    async def go() -> list[str]:
        app = make_app(store, out)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and screen.data is not None
            return [str(item["pair_id"]) for item in screen.data.items]

    return asyncio.run(go())


def csv_sample(path: Path) -> list[str]:
    with path.open(newline="") as handle:
        return [row["pair_id"] for row in csv.DictReader(handle)]


def test_the_apps_review_shows_the_pairs_the_cli_exports(
    isolated: ProfileStore, run_copy: Path
) -> None:
    path = run_copy / "cli_sample.csv"
    cli_ok("review", "export", str(run_copy), "--file", str(path))
    exported = csv_sample(path)
    shown = app_sample(isolated, run_copy)
    with closing(sqlite3.connect(run_copy / "audit.db")) as db:
        (pairs,) = db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()
    assert len(set(exported)) == review.SAMPLE_N < pairs  # a sample, not the whole run
    assert shown == exported


def test_one_size_for_the_cli_and_the_app(
    isolated: ProfileStore, run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(review, "SAMPLE_N", 12)
    path = run_copy / "cli_sample.csv"
    assert main(["review", "export", str(run_copy), "--file", str(path)]) == 0
    exported = csv_sample(path)
    shown = app_sample(isolated, run_copy)
    assert len(exported) == 12 and shown == exported

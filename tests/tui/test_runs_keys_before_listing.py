"""Keys pressed on the Runs screen before its picker has listed the runs (the directories are
read in a worker after the screen opens): `↓` then `a` moved and picked nothing, and `a` said
"no run to pick", while the runs showed a moment later. They wait for the list now, and act on
it in the order pressed. The listing is held until released (`hold`), as a slow disk holds it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from judgeaudit.analysis import compare_entry
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.recent import remember
from judgeaudit.tui.screens.runs import RunsScreen
from judgeaudit.tui.widgets.run_picker import RunPicker
from tests.tui.helpers import SMALL, hold, make_app, notices, settle, until


def test_keys_pressed_before_the_runs_are_listed_pick_from_the_list(
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    remember(isolated.root, rejudged_copy)  # opened before: listed after the app's directory
    release, started, _ = hold(monkeypatch, compare_entry, "list_runs", run_copy)

    async def go() -> tuple[tuple[Path, str] | None, list[str], list[tuple[Path, str]]]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SMALL) as pilot:
            await pilot.press("f6")  # not `press`: it waits for every worker to end
            await until(pilot, started.is_set, "the listing to start")
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            picker = screen.query_one(RunPicker)
            assert picker.row_count == 0 and picker.has_focus
            await pilot.press("down", "a")
            release.set()
            await until(pilot, lambda: picker.row_count == 2, "both runs listed")
            await settle(pilot)
            return screen.pick_a, notices(app), [(r.out, r.run_id) for r in picker.runs]

    pick_a, said, listed = asyncio.run(go())
    assert [out for out, _ in listed] == [run_copy, rejudged_copy.resolve()]
    assert pick_a == listed[1], (pick_a, listed)  # the second run: down, then a
    assert not any("no run to pick" in line for line in said), said

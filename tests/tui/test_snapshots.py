"""SVG snapshots of every screen and dialog, at 100×32 and at 80×24, stable across runs and
machine load: fixed seed, relative paths, no clocks, a steady app, and each picture taken once
the app has settled (helpers)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from judgeaudit.audit import events as ev
from judgeaudit.audit.units.verdict_parse import Pref
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.bridge import RunBridge
from judgeaudit.tui.drift_view import OVERALL
from judgeaudit.tui.screens.run import RunScreen
from judgeaudit.tui.screens.runs import RunsScreen
from judgeaudit.tui.widgets.fit_table import FitTable
from tests.tui.helpers import SIZE, SMALL, make_app, settle, snapshot

SIZES = pytest.mark.parametrize("size", [SIZE, SMALL], ids=["100x32", "80x24"])


async def show_run_screen(pilot: Pilot[None]) -> None:
    assert isinstance(pilot.app, JudgeAuditApp)
    pilot.app.show_place("run")
    await settle(pilot)


def stream_into_the_run_screen(app: JudgeAuditApp, paused: bool = False) -> RunScreen:
    """A run's events, fed to the one Run screen the way the worker would (no worker: a fixed
    picture), then drained at once instead of waiting for the 0.2 s timer."""
    bridge = RunBridge(Path("examples/demo.toml"), Path("out/demo"))
    bridge.simulated = True
    app.bridge = bridge
    screen = app.get_screen("run")
    assert isinstance(screen, RunScreen)
    screen.attach(bridge)
    bridge.on_event(ev.RunStarted("demo-96771371", "out/demo", False, 756, 756, 1890, 0, []))
    finished: list[tuple[str, str, bool, bool, Pref]] = [
        ("ace", "pro", True, False, "B"),
        ("ace", "weak", True, False, "A"),
        ("pro", "weak", True, True, "A"),
        ("ace", "pro", True, True, "tie"),
    ]
    for i, (a, b, sa, sb, pref) in enumerate(finished):
        task = f"retail-00{i}"
        pair_id = f"demo/{task}/t0/{a}~{b}"
        missel = sa != sb and pref == ("B" if sa else "A")
        bridge.on_event(ev.PairDone(pair_id, a, b, sa, sb, pref, missel, task))
        reason = "A shows concrete evidence that the request was completed"
        bridge.on_event(ev.JudgeCallDone(pair_id, "AB", 0, pref, 4.1, 3.2, reason, None, "{}"))
    bridge.on_event(
        ev.JudgeCallDone(
            "demo/retail-005/t0/ace~pro",
            "BA",
            0,
            None,
            None,
            None,
            "",
            "invalid JSON: Expecting ',' delimiter",
            '{"winner": "A", "score_a": 4',
        )
    )
    bridge.on_event(
        ev.Progress(
            "judging",
            912,
            1890,
            5120,
            2_100_000,
            0.0,
            3,
            0,
            9.5,
            539.0,
            4.0,
            {"sim": [17, 32]},
            {
                "sim": {
                    "mode": "adaptive",
                    "rps": 48.6,
                    "rpm": None,
                    "tpm": None,
                    "rate_limited": 12,
                }
            },
        )
    )
    bridge.paused = paused
    screen.drain()
    screen.show_paused()
    return screen


@SIZES
def test_profiles_screen(snap_compare: Any, isolated: ProfileStore, size: tuple[int, int]) -> None:
    assert snapshot(snap_compare, make_app(isolated), size=size)


@SIZES
def test_launch_screen(snap_compare: Any, isolated: ProfileStore, size: tuple[int, int]) -> None:
    assert snapshot(snap_compare, make_app(isolated), ["f2"], size=size)


@SIZES
def test_run_screen_streaming(
    snap_compare: Any, isolated: ProfileStore, size: tuple[int, int]
) -> None:
    async def feed(pilot: Pilot[None]) -> None:
        assert isinstance(pilot.app, JudgeAuditApp)
        await show_run_screen(pilot)
        stream_into_the_run_screen(pilot.app)

    assert snapshot(snap_compare, make_app(isolated), before=feed, size=size)


def test_run_screen_paused(snap_compare: Any, isolated: ProfileStore) -> None:
    async def feed(pilot: Pilot[None]) -> None:
        assert isinstance(pilot.app, JudgeAuditApp)
        await show_run_screen(pilot)
        stream_into_the_run_screen(pilot.app, paused=True)

    assert snapshot(snap_compare, make_app(isolated), before=feed, size=SMALL)


def test_run_screen_before_any_run(snap_compare: Any, isolated: ProfileStore) -> None:
    assert snapshot(snap_compare, make_app(isolated), ["f3"], size=SMALL)


@SIZES
def test_results_screen(
    snap_compare: Any, isolated: ProfileStore, run_copy: Path, size: tuple[int, int]
) -> None:
    assert snapshot(snap_compare, make_app(isolated, "run"), ["f4"], size=size)


def test_results_agent_pairs(snap_compare: Any, isolated: ProfileStore, run_copy: Path) -> None:
    assert snapshot(snap_compare, make_app(isolated, "run"), ["f4", "a"], size=SMALL)


@SIZES
def test_pairs_screen(
    snap_compare: Any, isolated: ProfileStore, run_copy: Path, size: tuple[int, int]
) -> None:
    assert snapshot(snap_compare, make_app(isolated, "run"), ["f4", "enter"], size=size)


@SIZES
def test_pairs_and_pair_detail_screens(
    snap_compare: Any, isolated: ProfileStore, run_copy: Path, size: tuple[int, int]
) -> None:
    assert snapshot(snap_compare, make_app(isolated, "run"), ["f4", "enter", "enter"], size=size)


@SIZES
def test_review_screen(
    snap_compare: Any, isolated: ProfileStore, run_copy: Path, size: tuple[int, int]
) -> None:
    keys = ["f5", "1", "3", "a"]
    assert snapshot(snap_compare, make_app(isolated, "run"), keys, size=size)


@SIZES
def test_runs_screen_compare(
    snap_compare: Any, isolated: ProfileStore, run_copy: Path, size: tuple[int, int]
) -> None:
    assert snapshot(snap_compare, make_app(isolated, "run"), ["f6", "ctrl+t"], size=size)


@SIZES
def test_runs_paired_compare_and_flipped_pairs(
    snap_compare: Any,
    isolated: ProfileStore,
    run_copy: Path,
    rejudged_copy: Path,
    size: tuple[int, int],
) -> None:
    """Runs on a re-judge (paired), Enter on the overall row: the flipped pairs listed."""

    async def compare(pilot: Pilot[None]) -> None:
        screen = pilot.app.get_screen("runs")
        assert isinstance(screen, RunsScreen)
        pilot.app.action_goto("runs")  # type: ignore[attr-defined]
        await settle(pilot)
        screen.query_one("#r-b", Input).value = "rejudged"
        await pilot.press("ctrl+t")
        await settle(pilot)
        table = screen.query_one("#drift", FitTable)
        table.focus()
        assert table.put_cursor(OVERALL)

    app = make_app(isolated, "run")
    assert snapshot(snap_compare, app, ["enter"], size=size, before=compare)


def pin_run_id(out: Path, run_id: str) -> None:
    """Rename the directory's one run in every table that names it."""
    with closing(sqlite3.connect(out / "audit.db")) as db, db:
        (old,) = db.execute("SELECT run_id FROM runs").fetchone()
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            columns = [c[1] for c in db.execute(f"PRAGMA table_info({table})")]
            if "run_id" in columns:
                db.execute(f"UPDATE {table} SET run_id = ? WHERE run_id = ?", (run_id, old))
        db.execute("UPDATE runs SET manifest = replace(manifest, ?, ?)", (old, run_id))


def test_runs_each_runs_figures(
    snap_compare: Any, isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    """Runs on a re-judge, `f`: each run's split, tie-aware rate and position bias (the
    re-judge's id, made from its spec and so from the session's temporary path, pinned)."""
    pin_run_id(rejudged_copy, "t-rejudge-pinned")

    async def compare(pilot: Pilot[None]) -> None:
        pilot.app.action_goto("runs")  # type: ignore[attr-defined]
        await settle(pilot)
        pilot.app.get_screen("runs").query_one("#r-b", Input).value = "rejudged"
        await pilot.press("ctrl+t")

    app = make_app(isolated, "run")
    assert snapshot(snap_compare, app, ["f"], size=SMALL, before=compare)


def test_runs_picker_long_run_ids_at_80x24(
    snap_compare: Any, isolated: ProfileStore, run_copy: Path, rejudged_copy: Path
) -> None:
    """Long run ids (a spec's own name) left the created column 16 cells: it read
    ``2026-01-02 03:0…``, the minute cut. It gives way by whole fields: ``01-02 03:04``."""
    pin_run_id(run_copy, "production-nightly-audit-v2-cd21ca2b")
    pin_run_id(rejudged_copy, "production-nightly-rejudge-5f0e")

    async def both(pilot: Pilot[None]) -> None:
        pilot.app.action_goto("runs")  # type: ignore[attr-defined]
        await settle(pilot)
        screen = pilot.app.get_screen("runs")
        assert isinstance(screen, RunsScreen)
        screen.query_one("#r-b", Input).value = "rejudged"
        screen.refresh_runs()  # both directories listed
        await settle(pilot)

    assert snapshot(snap_compare, make_app(isolated, "run"), [], size=SMALL, before=both)


def pin_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The switch diff shows paths: keep them the same on every checkout."""
    (tmp_path / "claude" / "settings.json").write_text('{"theme": "dark"}\n')
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "claude")
    monkeypatch.setattr("sys.executable", "/usr/bin/python3")


@SIZES
def test_switch_confirm_dialog(
    snap_compare: Any,
    isolated: ProfileStore,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
) -> None:
    pin_paths(tmp_path, monkeypatch)

    async def choose(pilot: Pilot[None]) -> None:
        assert pilot.app.get_screen("profiles").select_profile("taotoken-claude")  # type: ignore[attr-defined]

    assert snapshot(snap_compare, make_app(isolated), ["u"], size=size, before=choose)


@pytest.mark.parametrize(
    "keys",
    [["k"], ["a"], ["e"], ["b"], ["question_mark"]],
    ids=["key-entry", "add-form", "edit-form", "backups", "help"],
)
def test_dialogs_at_80x24(
    snap_compare: Any,
    isolated: ProfileStore,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    keys: list[str],
) -> None:
    pin_paths(tmp_path, monkeypatch)

    async def choose(pilot: Pilot[None]) -> None:
        assert pilot.app.get_screen("profiles").select_profile("taotoken-sdk")  # type: ignore[attr-defined]

    assert snapshot(snap_compare, make_app(isolated), keys, size=SMALL, before=choose)


def test_stop_run_dialog_at_80x24(snap_compare: Any, isolated: ProfileStore) -> None:
    async def feed(pilot: Pilot[None]) -> None:
        assert isinstance(pilot.app, JudgeAuditApp)
        await show_run_screen(pilot)
        stream_into_the_run_screen(pilot.app)

    assert snapshot(snap_compare, make_app(isolated), ["ctrl+q"], size=SMALL, before=feed)

"""SVG snapshots of every screen, stable across runs and machine load: fixed seed, relative
paths, no clocks, a steady app, and each picture taken once the app has settled (helpers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from judgeaudit.audit import events as ev
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.bridge import RunBridge
from judgeaudit.tui.screens.run import RunScreen
from tests.tui.helpers import make_app, snapshot


def test_profiles_screen(snap_compare: Any, isolated: ProfileStore) -> None:
    assert snapshot(snap_compare, make_app(isolated))


def test_launch_screen(snap_compare: Any, isolated: ProfileStore) -> None:
    assert snapshot(snap_compare, make_app(isolated), ["f2"])


def test_run_screen_streaming(snap_compare: Any, isolated: ProfileStore) -> None:
    async def feed(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, JudgeAuditApp)
        bridge = RunBridge(Path("examples/demo.toml"), Path("out/demo"))
        bridge.simulated = True
        app.bridge = bridge
        app.install_screen(RunScreen(bridge), "run")
        await app.switch_screen("run")
        bridge.on_event(ev.RunStarted("demo-96771371", "out/demo", False, 756, 0, 1890, 0, []))
        for i, (a, b, sa, sb, pref) in enumerate(
            [
                ("ace", "pro", True, False, "B"),
                ("ace", "weak", True, False, "A"),
                ("pro", "weak", True, True, "A"),
                ("ace", "pro", True, True, "tie"),
            ]
        ):
            bridge.on_event(
                ev.PairDone(
                    f"demo/retail-00{i}/t0/{a}~{b}",
                    a,
                    b,
                    sa,
                    sb,
                    pref,
                    sa != sb and pref == ("B" if sa else "A"),
                )
            )
            bridge.on_event(
                ev.JudgeCallDone(
                    f"demo/retail-00{i}/t0/{a}~{b}",
                    "AB",
                    0,
                    pref,
                    4.1,
                    3.2,
                    "A shows concrete evidence that the request was completed",
                    None,
                    "{}",
                )
            )
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
                "judging", 912, 1890, 5120, 2_100_000, 0.0, 3, 0, 9.5, 539.0, 4.0, {"sim": [17, 32]}
            )
        )
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.drain()  # what the 0.2 s timer does, now, so the picture does not wait for it

    assert snapshot(snap_compare, make_app(isolated), before=feed)


def test_results_screen(snap_compare: Any, isolated: ProfileStore, run_copy: Path) -> None:
    assert snapshot(snap_compare, make_app(isolated, "run"), ["f4"])


def test_pairs_and_pair_detail_screens(
    snap_compare: Any, isolated: ProfileStore, run_copy: Path
) -> None:
    assert snapshot(snap_compare, make_app(isolated, "run"), ["f4", "enter", "enter"])


def test_review_screen(snap_compare: Any, isolated: ProfileStore, run_copy: Path) -> None:
    assert snapshot(snap_compare, make_app(isolated, "run"), ["f5", "1", "3", "a"])


def test_runs_screen_compare(snap_compare: Any, isolated: ProfileStore, run_copy: Path) -> None:
    assert snapshot(snap_compare, make_app(isolated, "run"), ["f6", "ctrl+t"])


def test_pairs_screen(snap_compare: Any, isolated: ProfileStore, run_copy: Path) -> None:
    assert snapshot(snap_compare, make_app(isolated, "run"), ["f4", "enter"])


def test_switch_confirm_dialog(
    snap_compare: Any, isolated: ProfileStore, tmp_path: Path, monkeypatch: Any
) -> None:
    (tmp_path / "claude" / "settings.json").write_text('{"theme": "dark"}\n')
    # The diff shows paths: keep them the same on every checkout.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "claude")
    monkeypatch.setattr("sys.executable", "/usr/bin/python3")

    async def open_dialog(pilot: Pilot[None]) -> None:
        from textual.widgets import DataTable

        table = pilot.app.screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("taotoken-claude"))
        await pilot.press("u")

    assert snapshot(snap_compare, make_app(isolated), before=open_dialog)

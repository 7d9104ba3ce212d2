"""Navigation that cannot crash: one instance per screen, a second run from any screen, quitting
from any state (issue 13, item 1). Each test drives the app with keys, as a user would."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from textual.screen import Screen
from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.app import JudgeAuditApp
from judgeaudit.tui.screens.results import ResultsScreen
from judgeaudit.tui.screens.run import RunScreen
from tests.audit_helpers import write_spec
from tests.tui.helpers import SIZE, make_app, palette, press, settle, wait_until


def run_finished(app: JudgeAuditApp) -> bool:
    screen = app.screen
    return isinstance(screen, RunScreen) and screen.finished


def top(app: JudgeAuditApp) -> Screen[object]:
    """The screen on top now (a call, so an earlier isinstance check does not stick to it)."""
    return app.screen


def run_screen(app: JudgeAuditApp) -> RunScreen:
    screen = app.get_screen("run")
    assert isinstance(screen, RunScreen)
    return screen


def slow_spec(path: Path) -> Path:
    """The test spec with slow agents, so a run is still going when the test acts on it."""
    return write_spec(
        path,
        ace="agent-ace:latency_ms=200",
        weak="agent-weak:latency_ms=200",
        pro="agent-pro:latency_ms=200",
    )


def started(app: JudgeAuditApp) -> bool:
    """The live run reports conversations done (it is mid-way, not starting or ending)."""
    screen = run_screen(app)
    if not screen.query("#stats"):
        return False
    stats = str(screen.query_one("#stats", Static).render())
    return stats.startswith("trajectories: ") and not stats.startswith("trajectories: 0/")


@pytest.mark.parametrize("second_run", ["ctrl+b", "ctrl+g", "palette"])
def test_second_run_after_results_does_not_crash(
    isolated: ProfileStore, tmp_path: Path, second_run: str
) -> None:
    """After a run: Results, then F2 and ctrl+b / ctrl+g (or "Run demo" from the palette)."""
    spec = write_spec(tmp_path / "spec.toml")
    out = tmp_path / "out"

    async def go() -> tuple[int | None, str, bool]:
        app = make_app(isolated, out, demo_spec=spec)
        async with app.run_test(size=SIZE) as pilot:
            app.start_run(spec, out)
            await wait_until(pilot, lambda: run_finished(app), "the first run to finish")
            first = run_screen(app).bridge
            await press(pilot, "r")
            assert isinstance(app.screen, ResultsScreen)
            if second_run == "palette":
                await palette(pilot, "run demo", "Run demo")
            else:
                await press(pilot, "f2")
                (tmp_path / "form").mkdir()
                app.screen.query_one("#l-out").value = str(tmp_path / "form")  # type: ignore[attr-defined]
                await press(pilot, second_run)
            await wait_until(pilot, lambda: run_screen(app).bridge is not first, "a second run")
            title = str(run_screen(app).query_one("#run-title", Static).render())
            same_screen = top(app) is run_screen(app)
            run_screen(app).action_cancel()
            await wait_until(pilot, lambda: run_screen(app).finished, "the second run to stop")
            return app.return_code, title, same_screen

    code, title, same_screen = asyncio.run(go())
    assert code is None  # the app is still running: nothing crashed
    assert same_screen and title.startswith("Run ")


def test_function_keys_switch_and_never_stack(isolated: ProfileStore, run_copy: Path) -> None:
    async def go() -> list[tuple[str, int, int]]:
        app = make_app(isolated, run_copy)
        seen = []
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            for key in ("f4", "f4", "f5", "f4", "f5", "f6", "f4"):
                await press(pilot, key)
                seen.append((app.current_mode, len(app.screen_stack), id(app.screen)))
            # a drill-down, then F4 again: back on Results itself, the drill-down closed
            await press(pilot, "enter")
            assert type(app.screen).__name__ == "PairsScreen"
            await press(pilot, "f4")
            seen.append((app.current_mode, len(app.screen_stack), id(app.screen)))
            await press(pilot, "escape")  # Esc on Results walks back through nothing stale
            seen.append((app.current_mode, len(app.screen_stack), id(app.screen)))
        return seen

    seen = asyncio.run(go())
    assert all(depth == 1 for _, depth, _ in seen)
    results = {ident for mode, _, ident in seen if mode == "results"}
    review = {ident for mode, _, ident in seen if mode == "review"}
    assert len(results) == 1 and len(review) == 1  # one instance each, however often shown


def test_quit_without_a_run_exits_zero(isolated: ProfileStore) -> None:
    async def go() -> int | None:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+q")
        return app.return_code

    assert asyncio.run(go()) == 0


@pytest.mark.parametrize("paused", [False, True], ids=["running", "paused"])
def test_quit_during_a_run_asks_then_stops_it(
    isolated: ProfileStore, tmp_path: Path, paused: bool
) -> None:
    spec, out = slow_spec(tmp_path / "spec.toml"), tmp_path / "out"

    async def go() -> tuple[int | None, bool, float, str]:
        app = make_app(isolated, out, demo_spec=spec)
        async with app.run_test(size=SIZE) as pilot:
            app.start_run(spec, out)
            await wait_until(pilot, lambda: started(app), "the run to be under way")
            if paused:
                await press(pilot, "p")
            await press(pilot, "ctrl+q")
            question = " ".join(str(s.render()) for s in app.screen.query(Static))
            bridge = run_screen(app).bridge
            assert bridge is not None and not bridge.done  # asking does not stop anything
            asked_at = time.monotonic()
            await pilot.press("y")
            await wait_until(pilot, lambda: app.return_code is not None, "the app to exit")
            took = time.monotonic() - asked_at
        return app.return_code, bridge.done, took, question

    code, done, took, question = asyncio.run(go())
    assert "Stop the run? It can be resumed" in question
    assert code == 4 and done  # cut short (resumable), and the run thread has ended
    assert took < 2.0


def test_quit_answered_no_keeps_the_run(isolated: ProfileStore, tmp_path: Path) -> None:
    spec, out = slow_spec(tmp_path / "spec.toml"), tmp_path / "out"

    async def go() -> tuple[int | None, bool]:
        app = make_app(isolated, out, demo_spec=spec)
        async with app.run_test(size=SIZE) as pilot:
            app.start_run(spec, out)
            await wait_until(pilot, lambda: started(app), "the run to be under way")
            await press(pilot, "ctrl+q", "n")
            alive = isinstance(app.screen, RunScreen) and not run_screen(app).finished
            run_screen(app).action_cancel()
            await wait_until(pilot, lambda: run_screen(app).finished, "the run to stop")
        return app.return_code, alive

    code, alive = asyncio.run(go())
    assert alive and code is None


def test_uncaught_error_exits_one_with_a_named_traceback_log(
    isolated: ProfileStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEAUDIT_LOG_DIR", str(tmp_path / "logs"))

    def broken(self: object) -> None:
        raise RuntimeError("a bug on the Launch screen")

    monkeypatch.setattr("judgeaudit.tui.screens.launch.LaunchScreen.action_demo", broken)

    async def go() -> tuple[int | None, Path | None]:
        app = make_app(isolated)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f2")
            app.simulate_key("ctrl+g")  # pilot.press would wait for an app that is exiting
            await wait_until_exit(pilot, app)
        return app.return_code, app.crash_log

    code, log = asyncio.run(go())
    assert code == 1 and log is not None and log.parent == tmp_path / "logs"
    text = log.read_text()
    assert "RuntimeError: a bug on the Launch screen" in text and ", in broken" in text


async def wait_until_exit(pilot: object, app: JudgeAuditApp) -> None:
    """The app is exiting: nothing is processed any more, so wait on its return code alone."""
    deadline = time.monotonic() + 30
    while app.return_code is None:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)

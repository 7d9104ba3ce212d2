"""One bar and one ETA for the whole run (conversations, then judging), a bar as wide as the
screen, and a pause that shows no frozen rate."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from textual.widgets import Footer, ProgressBar, Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.run import RunScreen
from tests.audit_helpers import write_spec
from tests.tui.helpers import make_app, press, settle, until


@dataclass
class Seen:
    """What the test saw of the Run screen while the run went on."""

    samples: list[tuple[float, float | None]] = field(default_factory=list)  # (progress, total)
    phases: set[str] = field(default_factory=set)
    stats: str = ""
    bar_width: int = 0
    run: tuple[tuple[int, int], tuple[int, int]] = ((0, 0), (0, 0))  # (done, total) per phase


def test_the_bar_runs_once_across_phases(isolated: ProfileStore, tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path / "spec.toml",
        ace="agent-ace:latency_ms=20",
        weak="agent-weak:latency_ms=20",
        pro="agent-pro:latency_ms=20",
        judge="judge-default:latency_ms=40",
    )
    out = tmp_path / "out"

    async def go() -> Seen:
        seen = Seen()
        app = make_app(isolated, out, demo_spec=spec)
        async with app.run_test(size=(160, 40)) as pilot:
            app.start_run(spec, out)
            screen = app.get_screen("run")
            assert isinstance(screen, RunScreen)
            await until(pilot, lambda: bool(screen.query(ProgressBar)), "the Run screen")
            bar = screen.query_one(ProgressBar)
            stats = screen.query_one("#stats", Static)

            def sample() -> bool:
                if screen.last_progress is not None:
                    seen.samples.append((bar.progress, bar.total))
                    seen.phases.add(screen.last_progress.phase)
                    if not screen.finished:
                        seen.stats = str(stats.render())
                return screen.finished

            await until(pilot, sample, "the run to end")
            await settle(pilot)
            seen.bar_width = bar.query_one("Bar").size.width
            seen.run = (screen.run.get("trajectories"), screen.run.get("judging"))
        return seen

    seen = asyncio.run(go())
    samples = seen.samples
    assert samples
    assert {"trajectories", "judging"} <= seen.phases
    progress = [p for p, _ in samples]
    assert progress == sorted(progress), "the bar never restarts at 0% for a new phase"
    (_traj_done, traj_total), (_pairs_done, pairs_total) = seen.run
    assert {t for _, t in samples} == {traj_total + pairs_total}, "one total for the run"
    assert "whole run " in seen.stats and ", ETA " in seen.stats
    assert seen.bar_width > 100, "the bar uses the width it has"


def test_a_pause_shows_no_frozen_rate(isolated: ProfileStore, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.toml", judge="judge-default:latency_ms=600000")
    out = tmp_path / "out"

    async def go() -> tuple[str, list[str], list[str]]:
        app = make_app(isolated, out, demo_spec=spec)
        async with app.run_test(size=(100, 32)) as pilot:
            app.start_run(spec, out)
            screen = app.get_screen("run")
            assert isinstance(screen, RunScreen)
            await until(pilot, lambda: screen.last_progress is not None, "progress")
            await press(pilot, "p")
            paused = str(screen.query_one("#stats", Static).render())
            paused_keys = _footer_keys(screen)
            await press(pilot, "p")  # the key the footer names now resumes
            resumed_keys = _footer_keys(screen)
            assert not screen.bridge or not screen.bridge.paused
            screen.cancel_answered(True)
            await until(pilot, lambda: screen.finished, "the run to end")
            return paused, paused_keys, resumed_keys

    paused, paused_keys, resumed_keys = asyncio.run(go())
    assert "ETA paused" in paused and "— calls/s" in paused
    # while paused the footer said "p Pause" (a new user's finding): it names what p does now
    assert "p Resume" in paused_keys and "p Pause" not in paused_keys
    assert "p Pause" in resumed_keys and "p Resume" not in resumed_keys


def _footer_keys(screen: RunScreen) -> list[str]:
    return [str(k.render()).strip() for k in screen.query_one(Footer).query("FooterKey")]


def test_pause_and_cancel_are_offered_only_while_a_run_goes_on(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """Before a run and after it ended the footer offered p Pause and c Cancel (a new user
    pressed them after the run's process was killed); they show only while it runs. With no
    run yet it offered r Results, which did nothing and said nothing: it shows once there is a
    run to show."""
    spec = write_spec(tmp_path / "spec.toml", judge="judge-default:latency_ms=40")
    out = tmp_path / "out"

    async def go() -> tuple[list[str], list[str], list[str]]:
        app = make_app(isolated, out, demo_spec=spec)
        async with app.run_test(size=(160, 40)) as pilot:
            app.show_place("run")
            await settle(pilot)
            screen = app.get_screen("run")
            assert isinstance(screen, RunScreen)
            before = _footer_keys(screen)
            app.start_run(spec, out)
            await until(pilot, lambda: bool(screen.run_id), "the run to start")
            await pilot.pause()
            during = _footer_keys(screen)
            await until(pilot, lambda: screen.finished, "the run to end")
            await pilot.pause()
            return before, during, _footer_keys(screen)

    before, during, after = asyncio.run(go())
    assert "p Pause" in during and "c Cancel" in during
    for keys in (before, after):
        assert "p Pause" not in keys and "c Cancel" not in keys
    assert "r Results" not in before and "r Results" in after

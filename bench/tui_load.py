"""How long a key press takes to show on screen while a run streams into the Run screen, next to
the idle app and a minimal Textual app (the floor), as ratios (p50 and p95).

The run: the demo spec at concurrency 64 on the embedded provider with zero latency, measured
twice: in the app's own process (a worker thread, ``JUDGEAUDIT_RUN_IN=thread``) and in a child
process with its events over a pipe (the app's default since issue 23, goal 2: p50 <= 1.3x idle).
The key: `l` toggles the judge log.
With ``--rounds N`` the three (idle, thread, process) are measured N times round-robin and
their presses pooled, so a change in the shared machine's load falls on each alike; a press is
counted as "during a run" only if the run had not finished when it was painted.
Usage: python bench/tui_load.py [--presses 40] [--rounds 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App
from textual.widget import Widget

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


async def measure(presses: int, loaded: bool, out: Path, mode: str = "process") -> list[float]:
    from judgeaudit.tui.app import JudgeAuditApp
    from judgeaudit.tui.bridge import RunBridge
    from judgeaudit.tui.run_process import ProcessRunBridge
    from judgeaudit.tui.screens.run import RunScreen

    app = JudgeAuditApp(demo_spec=REPO / "examples" / "demo.toml", out_dir=out, steady=True)
    timings: list[float] = []
    async with app.run_test(size=(110, 34)) as pilot:
        kind = ProcessRunBridge if mode == "process" else RunBridge
        bridge = kind(REPO / "examples" / "demo.toml", out, concurrency=64)
        app.bridge = bridge
        app.show_place("run")
        await pilot.pause()
        run_screen = app.get_screen("run")
        assert isinstance(run_screen, RunScreen)
        run_screen.attach(bridge)
        if loaded:
            app.run_worker(bridge.run_blocking, thread=True, exit_on_error=False, group="audit")
            while bridge.drain().progress is None:  # wait until the run is streaming
                await pilot.pause(0.2)
        log = app.screen.query_one("#judge-log")
        for _ in range(presses):
            took = await press_and_wait_for_paint(app, log)
            if loaded and bridge.done:
                break  # the run ended: later presses would measure an idle app
            timings.append(took)
            await asyncio.sleep(0.05)
        if loaded:
            bridge.cancel()
            await pilot.pause(1.0)
    return timings


def shown(widget: Widget) -> tuple[bool, bool]:
    """What `l` changes: the log's `display` (up to 4b3a0c6) or its `visible` (after: no layout
    of the whole screen); either way whether it is on screen."""
    return widget.display, widget.visible


async def press_and_wait_for_paint(app: App[Any], log: Widget) -> float:
    """Send `l` as a key event into the app's message queue (where a terminal's driver puts it;
    Pilot's press does the same), then time until its effect is on screen: the action ran and
    the next refresh after it completed. Pilot's own press/pause are not used: they wait for the
    whole process to go idle, which a busy run never does."""
    before = shown(log)
    done: asyncio.Future[float] = asyncio.get_running_loop().create_future()

    def painted() -> None:
        if not done.done():
            done.set_result(time.perf_counter())

    started = time.perf_counter()
    app.post_message(events.Key("l", "l"))
    while shown(log) == before:
        await asyncio.sleep(0.0005)
    app.call_after_refresh(painted)
    return (await done - started) * 1000


async def measure_floor(presses: int) -> list[float]:
    """The floor: the same key, the same wait for paint, in a minimal Textual app (one widget
    the key shows and hides), so the ratio to idle says what the app itself adds."""
    from textual.app import ComposeResult
    from textual.widgets import Static

    class Minimal(App[None]):
        BINDINGS = [("l", "toggle_log", "toggle")]  # noqa: RUF012

        def compose(self) -> ComposeResult:
            yield Static("judge log", id="judge-log")

        def action_toggle_log(self) -> None:
            widget = self.query_one("#judge-log")
            widget.display = not widget.display

    app = Minimal()
    timings: list[float] = []
    async with app.run_test(size=(110, 34)) as pilot:
        await pilot.pause()
        log = app.query_one("#judge-log")
        for _ in range(presses):
            timings.append(await press_and_wait_for_paint(app, log))
            await asyncio.sleep(0.05)
    return timings


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    loads = [os.getloadavg()[0]]
    floor: list[float] = []
    idle: list[float] = []
    busy: dict[str, list[float]] = {"thread": [], "process": []}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.rounds):
            floor += asyncio.run(measure_floor(args.presses))
            idle += asyncio.run(measure(args.presses, False, Path(tmp) / f"idle{n}"))
            for mode, timings in busy.items():
                timings += asyncio.run(measure(args.presses, True, Path(tmp) / f"{mode}{n}", mode))
            loads.append(os.getloadavg()[0])
    for name, q in (("p50", 50), ("p95", 95)):
        i, f = pct(idle, q), pct(floor, q)
        runs = ", ".join(
            f"run in {mode} {pct(t, q):.1f} ms = {pct(t, q) / i:.2f}x idle"
            for mode, t in busy.items()
        )
        runs += f"; process/thread {pct(busy['process'], q) / pct(busy['thread'], q):.2f}"
        print(
            f"{name}: floor (a minimal Textual app) {f:.1f} ms, idle {i:.1f} ms "
            f"({i / f:.2f}x floor); while a run streams: {runs}"
        )
    print("goal: key-to-paint p50 while a run streams <= 1.3x idle (the run in a process)")
    counts = ", ".join(f"{mode} {len(t)}" for mode, t in busy.items())
    print(f"presses: idle {len(idle)}, during a run: {counts} ({args.rounds} round(s))")
    print(f"load average (1 min) {min(loads):.1f}-{max(loads):.1f} over the run")


if __name__ == "__main__":
    main()

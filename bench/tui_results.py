"""The Results screen of a 1,000,000-row audit: how long a key press takes to show on screen
while the report loads (in its worker), next to the same screen idle, as a ratio (p50, p95);
and how long the screen takes to show that it is loading, and to show the report.

The key: F10 opens the help and Escape closes it (a whole new screen painted each time).
Usage: python bench/tui_results.py [--rows 1000000] [--presses 30]
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.report_scale import build_db  # noqa: E402  (the same synthetic audit)


async def press_and_wait_for_paint(app: Any, key: str, shown: Any) -> float:
    """Send a key as a key event into the app's message queue (where a terminal's driver puts
    it; Pilot's press does the same), then time until its effect is on screen: `shown()` holds
    and the next refresh after it is done. Pilot's own press/pause wait for the whole process
    to go idle, which a loading screen never is."""
    from textual import events

    done: asyncio.Future[float] = asyncio.get_running_loop().create_future()
    started = time.perf_counter()
    app.post_message(events.Key(key, None))
    while not shown():
        await asyncio.sleep(0.0005)

    def mark() -> None:
        if not done.done():
            done.set_result(time.perf_counter())

    app.call_after_refresh(mark)
    return (await done - started) * 1000


async def help_round_trip(app: Any) -> list[float]:
    from judgeaudit.tui.screens.dialogs import HelpScreen

    opened = await press_and_wait_for_paint(app, "f10", lambda: isinstance(app.screen, HelpScreen))
    closed = await press_and_wait_for_paint(
        app, "escape", lambda: not isinstance(app.screen, HelpScreen)
    )
    return [opened, closed]


async def measure(out: Path, presses: int) -> dict[str, Any]:
    from judgeaudit.tui.app import JudgeAuditApp

    app = JudgeAuditApp(out_dir=out, steady=True)
    timings: dict[str, Any] = {"loading": [], "idle": []}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.get_screen("results")
        body = None
        started = time.perf_counter()
        app.open_results(out)
        while body is None or not body.loading:
            await asyncio.sleep(0.001)
            body = screen.query("#results-body").first() if screen.is_mounted else None
        timings["to_loading_ms"] = (time.perf_counter() - started) * 1000
        while body.loading and len(timings["loading"]) < 2 * presses:
            timings["loading"] += await help_round_trip(app)
        while body.loading:
            await asyncio.sleep(0.01)
        timings["to_report_s"] = time.perf_counter() - started
        for _ in range(presses):
            timings["idle"] += await help_round_trip(app)
    return timings


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--presses", type=int, default=30)
    args = parser.parse_args()
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        out.mkdir()
        started = time.perf_counter()
        build_db(out / "audit.db", args.rows)
        print(f"built {args.rows:,} rows in {time.perf_counter() - started:.1f}s")
        t = asyncio.run(measure(out, args.presses))
    print(
        f"Results screen: loading state shown {t['to_loading_ms']:.0f} ms after opening, "
        f"report shown after {t['to_report_s']:.1f}s; {len(t['loading'])} key presses while "
        f"loading, {len(t['idle'])} idle"
    )
    for name, q in (("p50", 50), ("p95", 95)):
        idle, busy = pct(t["idle"], q), pct(t["loading"], q)
        print(
            f"{name}: idle {idle:.1f} ms, while the report loads {busy:.1f} ms, ratio {busy / idle:.2f}"
        )


if __name__ == "__main__":
    main()

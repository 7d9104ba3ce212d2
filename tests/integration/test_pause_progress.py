"""A paused run still reports the units that were in flight.

Pausing stops new units; the ones in flight finish and are stored. Progress events are
throttled (one per 0.25 s), so the count shown while paused froze at the last event before the
in-flight units finished: a new user saw "726/1512 conversations" while audit.db held 755.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from judgeaudit.audit import events as ev
from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner
from tests.audit_helpers import write_spec

QUIET_S = 3.0  # no unit finished for this long: every one in flight has ended


def test_the_count_shown_while_paused_includes_the_units_in_flight(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path / "spec.toml", trials=2))
    events: list[ev.Event] = []

    async def go() -> tuple[int, int]:
        runner = AuditRunner(spec, tmp_path / "out", on_event=events.append, concurrency=16)
        task = asyncio.create_task(runner.run())
        loop = asyncio.get_running_loop()

        def finished() -> int:
            return sum(isinstance(e, ev.TrajectoryDone) for e in events)

        while finished() < 20:
            assert not task.done(), "the run ended before it could be paused"
            await asyncio.sleep(0.005)
        runner.pause()
        seen, quiet_since = finished(), loop.time()
        while loop.time() - quiet_since < QUIET_S:
            await asyncio.sleep(0.05)
            if finished() != seen:
                seen, quiet_since = finished(), loop.time()
        shown = [e for e in events if isinstance(e, ev.Progress) and e.phase == "trajectories"]
        runner.resume()  # as the app's cancel does: a paused run wakes to see it
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return shown[-1].done, seen

    shown, finished = asyncio.run(go())
    assert finished < 2 * 3 * 42  # paused before the end: the check means something
    assert shown == finished

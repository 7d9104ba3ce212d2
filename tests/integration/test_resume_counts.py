"""What the Run screen counts when a run is cancelled and resumed (a new user's findings).

After a cancel the title said "84/126 pairs stored" where audit.db held 92: progress events are
throttled and the cancel came before the next one. After a resume the agent-pair table counted
only the pairs judged since the resume (11 pairs where the report had 34). The references are
counted by hand from audit.db with plain SQL, not by the engine's own queries.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections import defaultdict
from pathlib import Path

import pytest

from judgeaudit.audit import events as ev
from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner
from judgeaudit.audit.store import bulk
from judgeaudit.tui.bridge import RunBridge
from tests.audit_helpers import write_spec


def cancel_while_judging(spec_path: Path, out: Path) -> list[ev.Event]:
    """Run until a pair is stored that the last progress event does not count yet, cancel
    there and then, and return every event the run sent."""
    spec = load_spec(spec_path)
    events: list[ev.Event] = []

    async def go() -> None:
        task: asyncio.Task[ev.RunFinished] | None = None

        def sink(event: ev.Event) -> None:
            events.append(event)
            judged = sum(isinstance(e, ev.PairDone) for e in events)
            shown = [e.done for e in events if isinstance(e, ev.Progress) and e.phase == "judging"]
            if task is not None and judged >= 10 and judged > max(shown, default=0):
                task.cancel()

        runner = AuditRunner(spec, out, on_event=sink, concurrency=8)
        task = asyncio.create_task(runner.run())
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(go())
    return events


def stored_pairs(out: Path) -> int:
    with contextlib.closing(sqlite3.connect(out / "audit.db")) as db:
        return int(db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0])


def slow_judge_spec(tmp_path: Path) -> Path:
    return write_spec(tmp_path / "spec.toml", judge="judge-default:latency_ms=15")


def test_a_cancelled_run_s_last_progress_counts_every_pair_it_stored(tmp_path: Path) -> None:
    out = tmp_path / "out"
    events = cancel_while_judging(slow_judge_spec(tmp_path), out)
    judged = sum(isinstance(e, ev.PairDone) for e in events)
    last = [e for e in events if isinstance(e, ev.Progress) and e.phase == "judging"][-1]
    assert 10 <= judged < 126  # cancelled while judging: the check means something
    assert last.done == judged == stored_pairs(out)


@pytest.mark.parametrize("groups_max", [5000, 3], ids=["per-task", "totals-only"])
def test_a_resumed_run_s_table_counts_the_pairs_stored_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, groups_max: int
) -> None:
    """Past ``STORED_GROUPS_MAX`` (agent pair, task) groups the start sends totals per agent
    pair: the counts stay whole, the live interval goes (``—``) until the report."""
    monkeypatch.setattr(bulk, "STORED_GROUPS_MAX", groups_max)
    spec_path, out = slow_judge_spec(tmp_path), tmp_path / "out"
    cancel_while_judging(spec_path, out)
    before = stored_pairs(out)
    bridge = RunBridge(spec_path, out)  # the app's table, fed the resumed run's events

    def over_the_pipe(event: ev.Event) -> None:  # as the app's run in a process sends them
        bridge.on_event(ev.event_from_json(json.loads(json.dumps(ev.event_json(event)))))

    async def resume() -> None:
        await AuditRunner(load_spec(spec_path), out, on_event=over_the_pipe).run()

    asyncio.run(resume())
    batch = bridge.drain()
    assert batch.started is not None and batch.started.resumed
    assert 0 < before < batch.started.pairs_total == stored_pairs(out)

    per_task: dict[tuple[str, str], dict[str, tuple[int, int]]] = defaultdict(dict)
    totals: dict[tuple[str, str], tuple[int, int, int]] = {}
    with contextlib.closing(sqlite3.connect(out / "audit.db")) as db:
        rows = db.execute(
            "SELECT agent_a, agent_b, task_id, success_a, success_b, misselected FROM audit_pairs"
        ).fetchall()
    for a, b, task, success_a, success_b, misselected in rows:
        is_decisive, missed = int(success_a != success_b), int(misselected or 0)
        pairs, decisive, misses = totals.get((a, b), (0, 0, 0))
        totals[(a, b)] = (pairs + 1, decisive + is_decisive, misses + missed)
        k, n = per_task[(a, b)].get(task, (0, 0))
        per_task[(a, b)][task] = (k + missed, n + is_decisive)

    shown = {agents: (s.pairs, s.decisive, s.misselected) for agents, s in batch.pair_stats.items()}
    assert shown == totals
    if groups_max == 3:
        assert len(batch.started.stored) == len(totals) and {
            r[2] for r in batch.started.stored
        } == {""}
        assert all(stats.sums is None for stats in batch.pair_stats.values())
        return
    for agents, stats in batch.pair_stats.items():
        counts = list(per_task[agents].values())
        assert stats.sums is not None
        assert (stats.sums.k, stats.sums.n) == tuple(map(sum, zip(*counts, strict=True)))
        assert stats.sums.kk == sum(k * k for k, _ in counts)
        assert stats.sums.kn == sum(k * n for k, n in counts)
        assert stats.sums.nn == sum(n * n for _, n in counts)
        assert stats.sums.clusters == sum(n > 0 for _, n in counts)

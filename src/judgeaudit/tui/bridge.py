"""Runs an audit in a worker thread with its own event loop and hands events to the UI in
batches: the UI drains on a timer, so a burst of events never floods the message queue, a newer
progress status replaces a pending one, and the judge-log backlog is bounded."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from judgeaudit.analysis.clustered import Sums
from judgeaudit.audit import events as ev
from judgeaudit.audit.units.outcome import decisive
from judgeaudit.errors import JudgeauditError
from judgeaudit.tui.judge_log import LogEvent

if TYPE_CHECKING:
    from judgeaudit.audit.runner import AuditRunner
    from judgeaudit.tui.messages import WrittenSpec

LOG_BACKLOG = 2000


NO_SUMS = Sums(0, 0, 0, 0, 0, 0)


@dataclass
class PairStats:
    pairs: int = 0
    decisive: int = 0
    misselected: int = 0
    #: misselected over decisive, per task: the report's clustered sums for the live interval,
    #: kept up to date a pair at a time (a drain copies one record, not every task's counts);
    #: None once a pair came without its task (an older event stream): no interval then
    sums: Sums | None = NO_SUMS


@dataclass
class Batch:
    """What the UI needs since the last drain."""

    started: ev.RunStarted | None = None
    progress: ev.Progress | None = None
    judge_calls: list[LogEvent] = field(default_factory=list)
    failures: list[ev.UnitFailed] = field(default_factory=list)
    pair_stats: dict[tuple[str, str], PairStats] = field(default_factory=dict)
    finished: ev.RunFinished | None = None
    error: str | None = None
    cancelled: bool = False
    done: bool = False


class RunBridge:
    def __init__(self, spec_path: Path, out_dir: Path, concurrency: int | None = None) -> None:
        self.spec_path = spec_path
        self.out_dir = out_dir
        self.concurrency = concurrency
        self.paused = False
        self.simulated = False  # the spec uses the embedded simulated provider
        self._lock = threading.Lock()
        self._started: ev.RunStarted | None = None
        self._progress: ev.Progress | None = None
        self._calls: deque[LogEvent] = deque(maxlen=LOG_BACKLOG)
        self._failures: list[ev.UnitFailed] = []
        self._stats: dict[tuple[str, str], PairStats] = {}
        #: (agent pair, task) -> (misselected, decisive) so far: what the next pair moves
        self._per_task: dict[tuple[str, str, str], tuple[int, int]] = {}
        self._finished: ev.RunFinished | None = None
        self._error: str | None = None
        self._cancelled = False
        self._done = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[ev.RunFinished] | None = None
        self._runner: AuditRunner | None = None
        self._cancel_requested = False
        self._ended = threading.Event()  # set once the worker body has returned
        self._began = False  # the run started (a RunStarted came): not refused
        self.written: WrittenSpec | None = None  # the spec file Launch wrote for this run

    # --- called in the worker thread ---------------------------------------------------------
    def on_event(self, event: ev.Event) -> None:
        with self._lock:
            self._take(event)

    def on_events(self, events: list[ev.Event]) -> None:
        """A batch under one hold of the lock (the run's process sends many per read)."""
        with self._lock:
            for event in events:
                self._take(event)

    def _take(self, event: ev.Event) -> None:
        """Fold an event into what the next drain returns (the caller holds the lock)."""
        if isinstance(event, ev.Progress):
            self._progress = event  # replaces a pending one instead of queueing behind it
        elif isinstance(event, ev.JudgeCallDone | ev.TrajectoryDone):
            self._calls.append(event)
        elif isinstance(event, ev.PairDone):
            self._calls.append(event)  # the log's verdict line, and its misselected filter
            self._count(event)
        elif isinstance(event, ev.RunStarted):
            self._started = event
            self._began = True
            for a, b, task, pairs, decisive_pairs, misselected in event.stored:
                self._add((a, b), task, pairs, decisive_pairs, misselected)
        elif isinstance(event, ev.UnitFailed):
            self._failures.append(event)
        elif isinstance(event, ev.RunFinished):
            self._finished = event

    def _count(self, event: ev.PairDone) -> None:
        is_decisive = int(decisive(event.success_a, event.success_b))
        agents = (event.agent_a, event.agent_b)
        self._add(agents, event.task_id, 1, is_decisive, int(event.misselected))

    def _add(
        self, agents: tuple[str, str], task_id: str, pairs: int, decisive_pairs: int, missed: int
    ) -> None:
        """``pairs`` more of one agent pair on one task: a judged pair, or a resume's stored."""
        stats = self._stats.setdefault(agents, PairStats())
        stats.pairs += pairs
        stats.decisive += decisive_pairs
        stats.misselected += missed
        if not task_id or stats.sums is None:
            stats.sums = None
            return
        key = (*agents, task_id)
        k, n = before = self._per_task.get(key, (0, 0))
        after = self._per_task[key] = (k + missed, n + decisive_pairs)
        stats.sums = stats.sums.moved(before, after)

    def run_blocking(self) -> None:
        """The worker body: the engine's one entry (load, run or resume, write the report).

        The engine is imported here, in the worker: with the run in a child process
        (:mod:`judgeaudit.tui.run_process`) the app never loads it, nor pandas or aiohttp."""
        from judgeaudit.engine import RunIncomplete, run_audit

        loop = asyncio.new_event_loop()
        error: str | None = None
        cancelled = False
        try:
            with self._lock:
                self._loop = loop
                self._task = loop.create_task(
                    run_audit(
                        self.spec_path,
                        self.out_dir,
                        on_event=self.on_event,
                        concurrency=self.concurrency,
                        on_runner=self._attach,
                    )
                )
                if self._cancel_requested:  # cancelled before the worker got here
                    self._task.cancel()
            loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            cancelled = True
        except RunIncomplete:
            pass  # the finished event says so; the Run screen shows "incomplete"
        except JudgeauditError as exc:
            error = exc.in_app()
        except Exception as exc:  # shown in the UI, never swallowed behind the screen
            error = f"{type(exc).__name__}: {exc}"
        finally:
            with self._lock:
                self._loop = None
            loop.close()
            self._settle(error, cancelled)

    def _settle(self, error: str | None, cancelled: bool) -> None:
        """The worker body's end: a run refused before it began puts back the spec file Launch
        wrote for it (the refusal wrote nothing else), then the state the UI drains."""
        with self._lock:
            refused = error is not None and not self._began
        if refused and self.written is not None:
            with contextlib.suppress(OSError):  # the refusal is what the user must see
                self.written.undo()
        with self._lock:
            self._error, self._cancelled, self._done = error, cancelled, True
        self._ended.set()

    def _attach(self, runner: AuditRunner) -> None:
        self._runner = runner
        self.simulated = any(e.embedded for e in runner.spec.endpoints.values())

    # --- called from the UI thread -----------------------------------------------------------
    def drain(self) -> Batch:
        with self._lock:
            batch = Batch(
                self._started,
                self._progress,
                list(self._calls),
                self._failures,
                {
                    k: PairStats(v.pairs, v.decisive, v.misselected, v.sums)
                    for k, v in self._stats.items()
                },
                self._finished,
                self._error,
                self._cancelled,
                self._done,
            )
            self._started, self._progress = None, None
            self._calls.clear()
            self._failures = []
        return batch

    @property
    def done(self) -> bool:
        """The worker body has returned (finished, failed or cancelled)."""
        return self._ended.is_set()

    def wait_done(self, timeout: float) -> bool:
        return self._ended.wait(timeout)

    def toggle_pause(self) -> bool:
        with self._lock:
            loop, runner = self._loop, self._runner
            if loop is None or runner is None or self._cancel_requested:
                return self.paused
            self.paused = not self.paused
            loop.call_soon_threadsafe(runner.pause if self.paused else runner.resume)
        return self.paused

    def cancel(self) -> None:
        """Stop the run at its next await; safe at any moment, also before it started."""
        with self._lock:
            self._cancel_requested = True
            loop, task, runner = self._loop, self._task, self._runner
            if loop is None or task is None:
                return  # not started (run_blocking sees the request) or already over
            if self.paused and runner is not None:
                self.paused = False
                loop.call_soon_threadsafe(runner.resume)
            loop.call_soon_threadsafe(task.cancel)

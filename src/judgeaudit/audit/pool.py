"""The worker pool every phase of a run shares: N workers over the phase's units, each unit
tried up to three times, pause and resume between units, progress as it goes.

A refused request (auth, not found, bad request) or an unreachable endpoint stops the run at
once (every other unit would fail the same way); other errors fail only their unit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from judgeaudit.audit import events as ev
from judgeaudit.audit.run_choice import EndpointDown, RunError, first_leaf
from judgeaudit.audit.spec.endpoints import Endpoints
from judgeaudit.audit.units import CheckUnit, PairUnit, TrajectoryUnit, Unit
from judgeaudit.audit.units.usage import Usage
from judgeaudit.llm import LLMError

U = TypeVar("U", TrajectoryUnit, PairUnit, CheckUnit)
UNIT_TRIES = 3


class WorkerPool:
    """The phases of :class:`judgeaudit.audit.runner.AuditRunner`, which sets these fields."""

    usage: Usage
    emit: ev.EventSink
    paused: asyncio.Event
    concurrency: int
    endpoints: Endpoints | None
    last_failure: str | None

    async def _phase(
        self,
        name: ev.Phase,
        total: int,
        todo: Sequence[U],
        work: Callable[[U], Awaitable[None]],
        done: int | None = None,
    ) -> None:
        self.usage.start_phase(name, total, total - len(todo) if done is None else done)
        self.emit(ev.PhaseStarted(name, total, self.usage.counters.done))
        iterator = iter(todo)

        async def worker() -> None:
            for unit in iterator:
                await self.paused.wait()
                await self._attempt(unit, work)
                self.usage.counters.done += 1
                # paused, the units in flight still finish: each one is shown, or the count
                # froze at the last throttled event while the store held more
                self._progress(force=not self.paused.is_set())

        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(self.concurrency):
                    group.create_task(worker())
        except BaseExceptionGroup as errors:
            raise first_leaf(errors) from None  # one clear error, not a traceback tree
        finally:
            # also when cancelled or stopped: the last throttled event lagged the units stored
            # since (the app's title said 84/126 pairs stored where audit.db held 92)
            self._progress(force=True)

    async def _attempt(self, unit: U, work: Callable[[U], Awaitable[None]]) -> None:
        for attempt in range(1, UNIT_TRIES + 1):
            try:
                await work(unit)
                return
            except LLMError as exc:
                if exc.kind in ("auth", "not_found", "request"):
                    raise RunError(str(exc)) from None
                if exc.kind == "unreachable":  # every other unit would be refused the same way
                    raise EndpointDown(str(exc)) from None
                if attempt == UNIT_TRIES:
                    self.last_failure = str(exc)
                    self.usage.counters.failures += 1
                    self.emit(ev.UnitFailed(_unit_name(unit), f"{exc} (rerun to retry)"))

    def _progress(self, force: bool = False) -> None:
        limits = self.endpoints.limits() if self.endpoints else {}
        rates = self.endpoints.rate_limits() if self.endpoints else {}
        event = self.usage.progress(limits, force, rates)
        if event is not None:
            self.emit(event)


def _unit_name(unit: Unit) -> str:
    return unit.name

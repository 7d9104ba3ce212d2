"""Usage counters (calls, tokens, cost, retries) and the throttled progress events built on them."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from judgeaudit.audit import events as ev
from judgeaudit.audit.spec import ModelRef
from judgeaudit.audit.units.conversation import CallSink
from judgeaudit.llm import CallResult

PROGRESS_EVERY_S = 0.25


@dataclass
class Counters:
    calls: int = 0
    tokens: int = 0
    cost: float = 0.0
    retries: int = 0
    failures: int = 0
    done: int = 0
    total: int = 0
    phase: ev.Phase = "trajectories"  # set by start_phase before any call is counted
    started: float = field(default_factory=time.monotonic)
    phase_started: float = field(default_factory=time.monotonic)
    #: units of the phase already stored when it started here (a resumed run's earlier work)
    phase_done_at_start: int = 0
    last_emit: float = 0.0


def call_cost(result: CallResult, prices: tuple[float, float] | None) -> float | None:
    """USD for one call when the endpoint declares prices (per million tokens), else None."""
    if prices is None:
        return None
    return (result.prompt_tokens * prices[0] + result.completion_tokens * prices[1]) / 1e6


class Usage:
    """Counts every model call once: into the unit's ``calls`` rows and the live counters."""

    def __init__(self) -> None:
        self.counters = Counters()

    def start_phase(self, name: ev.Phase, total: int, done: int) -> None:
        c = self.counters
        c.phase, c.total, c.done, c.phase_started = name, total, done, time.monotonic()
        c.phase_done_at_start = done

    def recorder(
        self,
        run_id: str,
        scope: str,
        sink: list[dict[str, Any]],
        refs: Mapping[str, ModelRef],
        prices: Mapping[str, tuple[float, float]],
    ) -> CallSink:
        """A call sink for one unit: ``calls`` rows go to ``sink`` (stored with the unit)."""

        def record(role: str, model: str, result: CallResult) -> None:
            ref = refs[role]
            cost = call_cost(result, prices.get(ref.endpoint))
            sink.append(
                {
                    "run_id": run_id,
                    "scope": scope,
                    "role": role,
                    "model": model,
                    "endpoint": ref.endpoint,
                    "prompt_tokens": result.prompt_tokens,
                    "completion_tokens": result.completion_tokens,
                    "latency_ms": round(result.latency_ms, 1),
                    "attempts": result.attempts,
                    "cost_usd": cost,
                }
            )
            c = self.counters
            c.calls += 1
            c.tokens += result.prompt_tokens + result.completion_tokens
            c.cost += cost or 0.0
            c.retries += result.attempts - 1

        return record

    def progress(
        self,
        limits: dict[str, list[int]],
        force: bool = False,
        rate_limits: dict[str, dict[str, Any]] | None = None,
    ) -> ev.Progress | None:
        """A progress event, at most every PROGRESS_EVERY_S unless forced."""
        c = self.counters
        now = time.monotonic()
        if not force and now - c.last_emit < PROGRESS_EVERY_S:
            return None
        c.last_emit = now
        elapsed = now - c.started
        phase_elapsed = max(now - c.phase_started, 1e-6)
        # the rate of this process's own work: a resumed run's stored units took no time here
        # (counting them made the ETA about half the real time, growing as the run advanced)
        rate = max(c.done - c.phase_done_at_start, 0) / phase_elapsed
        eta = (c.total - c.done) / rate if rate > 0 else None
        return ev.Progress(
            c.phase,
            c.done,
            c.total,
            c.calls,
            c.tokens,
            round(c.cost, 6),
            c.retries,
            c.failures,
            round(elapsed, 2),
            round(c.calls / max(elapsed, 1e-6), 1),
            eta,
            limits,
            rate_limits or {},
        )

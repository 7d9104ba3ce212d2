"""Fault and latency decisions, reproducible per (request, attempt number), and a rate limit.

Random faults (``rate_429``, ``rate_500``, ...) are drawn from (seed, request hash, attempt) so
reruns see the same faults. ``rate_limit_rps`` is different on purpose: a real token bucket, as
a gateway runs it, that answers 429 to whatever arrives above R requests/s (bursts up to
``rate_limit_burst``, default one second's worth), with the wait until the next free token as
``Retry-After``. It depends on timing, not on the request, like the limit it imitates.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from judgeaudit.sim.types import rng_for

FAULT_KINDS = ("429", "500", "503", "hang", "truncate", "empty")


@dataclass(frozen=True)
class Decision:
    delay_s: float
    fault: str | None


class FaultPlanner:
    """Draws each attempt's fault from (seed, request hash, attempt): reruns see the same faults."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.attempts: Counter[str] = Counter()

    def decide(self, request_key: str, faults: dict[str, float]) -> Decision:
        attempt = self.attempts[request_key]
        self.attempts[request_key] += 1
        rng = rng_for("fault", self.seed, request_key, attempt)
        delay = faults["latency_ms"] / 1000 + rng.random() * faults["jitter_ms"] / 1000
        return Decision(delay, _pick(rng, faults))


def _pick(rng: random.Random, faults: dict[str, float]) -> str | None:
    roll = rng.random()
    for kind in FAULT_KINDS:
        rate = faults[f"rate_{kind}"]
        if roll < rate:
            return kind
        roll -= rate
    return None


class TokenBucket:
    """``rate`` tokens a second, at most ``capacity`` banked; one request takes one token."""

    def __init__(
        self, rate: float, capacity: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.capacity = max(1.0, capacity)
        self.clock = clock
        self.tokens = self.capacity
        self.stamp = clock()
        self.admitted = 0
        self.refused = 0

    def take(self) -> float | None:
        """None when the request may go on, else the seconds until a token is free."""
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            self.admitted += 1
            return None
        self.refused += 1
        return (1.0 - self.tokens) / self.rate


class RateLimits:
    """The buckets of a server: one shared by every model that uses the global ``[faults]``
    limit, and one per model that declares its own (preset or inline ``rate_limit_rps=R``)."""

    def __init__(self, global_faults: dict[str, float]) -> None:
        self.global_limit = (
            global_faults.get("rate_limit_rps", 0.0),
            global_faults.get("rate_limit_burst", 0.0),
        )
        self.buckets: dict[str, TokenBucket] = {}

    def take(self, model_id: str, faults: dict[str, float]) -> float | None:
        rate, burst = faults["rate_limit_rps"], faults["rate_limit_burst"]
        if rate <= 0:
            return None
        key = "*" if (rate, burst) == self.global_limit else model_id
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(rate, burst if burst > 0 else rate)
        return bucket.take()

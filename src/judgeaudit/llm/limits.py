"""Request pacing for an endpoint: a declared rpm/tpm limit, or AIMD on 429s when none is declared.

Real gateways answer 429 long before the client is the bottleneck, and every 429 is a wasted
round trip plus a Retry-After wait. So the client paces itself:

- **declared** (``rpm`` / ``tpm`` in the spec or profile): token buckets at exactly that rate;
  a request's token cost is estimated from its messages (and ``max_tokens``, else the mean
  completion so far) and corrected with the real usage once the reply is in.
- **adaptive** (no limit declared): unpaced until 429s become a real share of the attempts
  (``REFUSED_SHARE`` over the last ``WINDOW_S``: a stray 429 is not a limit); then the rate is
  set a little under what actually got through in the last second (multiplicative decrease,
  once per round of attempts sent after the previous one, so one burst of refusals is one
  signal) and grows additively while calls succeed. The pacing is on the request rate, not on concurrency: halving a concurrency window
  (TCP style) averages about 0.75 of the limit; a gentle rate sawtooth keeps it above 0.9 while
  only a few calls per cycle meet a 429.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: After a 429 the rate becomes BACKOFF x what got through (or x the current rate).
BACKOFF = 0.9
#: While calls succeed the rate grows by this share of itself per second.
GROWTH_PER_S = 0.03
DECREASE_EVERY_S = 0.5
#: Seconds of attempts over which the adaptive mode counts 429s.
WINDOW_S = 2.0
#: 429s among the window's attempts that count as hitting a limit: this share above the usual
#: share (a gateway that refuses 5% of calls at any rate is flaky, not limiting), and at least
#: MIN_REFUSED of them.
REFUSED_SHARE = 0.02
BACKGROUND_ATTEMPTS = 300
BACKGROUND_PRIOR = 0.05
MAX_BACKGROUND = 0.3
MIN_REFUSED = 3
#: A share of fewer attempts than this is noise: it is taken over this many.
MIN_ATTEMPTS = 50
#: How long the best stretch of successes is remembered (half of it floors a slow-down).
FLOOR_MEMORY_S = 10.0
FIRST_COMPLETION_GUESS = 256


@dataclass(frozen=True)
class RateLimit:
    """What an endpoint declares: requests and/or tokens per minute (None = not declared)."""

    rpm: float | None = None
    tpm: float | None = None

    @property
    def declared(self) -> bool:
        return self.rpm is not None or self.tpm is not None


class Bucket:
    """``rate`` units a second; a taker may overdraw (a big prompt), later takers then wait."""

    def __init__(self, rate: float, capacity: float, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.capacity = capacity
        self.clock = clock
        self.level = capacity
        self.stamp = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now

    def wait_s(self, need: float) -> float:
        """Seconds until ``need`` units (at most a full bucket) are banked; 0 = go now."""
        self._refill()
        return max(0.0, (min(need, self.capacity) - self.level) / self.rate)

    def take(self, amount: float) -> None:
        self._refill()
        self.level -= amount


class Pacer:
    """One endpoint's pacing. ``await acquire(cost)`` before each attempt (it returns the moment
    the attempt was let go) and ``settle`` / ``rate_limited`` with that moment after it; ``rps``
    is the request-rate limit in force (None = unpaced)."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.clock = clock
        self.mode = "declared" if limit.declared else "adaptive"
        self.requests = Bucket(limit.rpm / 60, 1.0, clock) if limit.rpm else None
        self.tokens = Bucket(limit.tpm / 60, limit.tpm / 60, clock) if limit.tpm else None
        self.refused = 0  # 429s seen
        self._completions: deque[int] = deque(maxlen=200)
        self._attempts: deque[tuple[float, bool]] = deque()  # (let go, refused), last WINDOW_S
        self._refused_in_window = 0
        self._background = BACKGROUND_PRIOR  # the usual share of 429s, a slow average
        self._best: deque[tuple[float, float]] = deque()  # (when, successes/s), FLOOR_MEMORY_S
        self._last_decrease = float("-inf")
        self._last_growth = clock()
        self._gate = asyncio.Lock()

    @property
    def rps(self) -> float | None:
        return self.requests.rate if self.requests else None

    def cost(self, messages: list[dict[str, Any]], max_tokens: int | None) -> int:
        """A token estimate for the tpm bucket: about four characters a token, plus the reply."""
        chars = sum(len(str(m.get("content") or "")) for m in messages)
        expected = max_tokens or (
            round(sum(self._completions) / len(self._completions))
            if self._completions
            else FIRST_COMPLETION_GUESS
        )
        return chars // 4 + 4 * len(messages) + expected

    async def acquire(self, cost: int) -> float:
        """Wait for the request (and token) buckets, one waiter at a time so the order is
        fair; return the moment the attempt was let go."""
        if self.requests is None and self.tokens is None:
            return self.clock()
        async with self._gate:
            while True:
                self._grow()
                waits = [self.requests.wait_s(1.0)] if self.requests else []
                waits += [self.tokens.wait_s(cost)] if self.tokens else []
                if not waits or max(waits) <= 1e-6:  # a float hair is not a wait
                    break
                await asyncio.sleep(max(waits))
            if self.requests is not None:
                self.requests.take(1.0)
            if self.tokens is not None:
                self.tokens.take(cost)
        return self.clock()

    def settle(
        self, let_go: float, estimated: int, used: int | None, completion: int | None
    ) -> None:
        """After a successful attempt: correct the token estimate and count the success."""
        if self.tokens is not None and used is not None:
            self.tokens.take(used - estimated)
        if completion is not None:
            self._completions.append(completion)
        now = self._note(let_go, refused=False)
        if not self._best or now - self._best[-1][0] >= 0.25:
            self._best.append((now, self._through(now)))
            while self._best[0][0] < now - FLOOR_MEMORY_S:
                self._best.popleft()

    def refund(self, estimated: int) -> None:
        """An attempt that never reached the model (429): its token estimate is given back."""
        if self.tokens is not None:
            self.tokens.take(-estimated)

    def _note(self, let_go: float, refused: bool) -> float:
        now = self.clock()
        self._attempts.append((let_go, refused))
        self._refused_in_window += refused
        self._background += (refused - self._background) / BACKGROUND_ATTEMPTS
        while self._attempts and self._attempts[0][0] < now - WINDOW_S:  # a slow call's own
            self._refused_in_window -= self._attempts.popleft()[1]  # entry may go at once too
        return now

    def _through(self, now: float) -> float:
        """Successes per second over the window (at least one second of it: no burst spikes)."""
        if not self._attempts:
            return 0.0
        span = max(1.0, now - self._attempts[0][0])
        return (len(self._attempts) - self._refused_in_window) / span

    def rate_limited(self, let_go: float) -> None:
        """A 429 for an attempt let go at ``let_go``. Adaptive mode slows down when 429s are a
        real share of the attempts, once per round (attempts let go after the last slow-down);
        declared limits stay as declared."""
        self.refused += 1
        now = self._note(let_go, refused=True)
        if self.mode != "adaptive" or let_go < self._last_decrease:
            return  # sent before the last slow-down: it says nothing about the new rate
        if now - self._last_decrease < DECREASE_EVERY_S:
            return
        refused = self._refused_in_window
        usual = min(self._background, MAX_BACKGROUND)
        seen = max(len(self._attempts), MIN_ATTEMPTS)
        if refused < MIN_REFUSED or refused < (usual + REFUSED_SHARE) * seen:
            return  # stray 429s, or no more of them than usual: not a limit being hit
        # Never below half of the best stretch lately: 429s that keep coming at any rate (a
        # flaky gateway, not a limit) must not spiral the rate down to nothing.
        floor = 0.5 * max((through for _, through in self._best), default=0.0)
        current = self.requests.rate if self.requests else float("inf")
        rate = max(1.0, floor, BACKOFF * min(current, self._through(now)))
        if self.requests is None:
            self.requests = Bucket(rate, 1.0, self.clock)
        else:
            self.requests.rate = rate
        self._last_decrease = self._last_growth = now

    def _grow(self) -> None:
        if self.mode != "adaptive" or self.requests is None:
            return
        now = self.clock()
        self.requests.rate *= 1.0 + GROWTH_PER_S * (now - self._last_growth)
        self._last_growth = now

    def snapshot(self) -> dict[str, Any]:
        """For progress events: mode, the request rate in force, declared limits, 429s."""
        return {
            "mode": self.mode,
            "rps": None if self.rps is None else round(self.rps, 2),
            "rpm": self.limit.rpm,
            "tpm": self.limit.tpm,
            "rate_limited": self.refused,
        }

"""The ETA the Run screen shows, from the live counters over a recent window.

Paused time never counts: a pause stops the clock and a resume starts a fresh window, so the
estimate after a long pause is about the work, not the wait."""

from __future__ import annotations

from collections import deque

WINDOW_S = 30.0
MIN_SPAN_S = 1.0


class EtaClock:
    def __init__(self, window_s: float = WINDOW_S) -> None:
        self.window_s = window_s
        self.samples: deque[tuple[float, int]] = deque()
        self.phase: str | None = None
        self.total = 0
        self.paused = False

    def update(self, phase: str, done: int, total: int, now: float) -> None:
        if phase != self.phase or (self.samples and done < self.samples[-1][1]):
            self.samples.clear()
        self.phase, self.total = phase, total
        if self.paused:
            return
        self.samples.append((now, done))
        while len(self.samples) > 2 and now - self.samples[0][0] > self.window_s:
            self.samples.popleft()

    def pause(self) -> None:
        self.paused = True

    def resume(self) -> None:
        self.paused = False
        self.samples.clear()  # the next update starts a window that excludes the pause

    def eta_s(self) -> float | None:
        """Seconds left in this phase, or None while paused or before a rate is known."""
        if self.paused or len(self.samples) < 2:
            return None
        (t0, d0), (t1, d1) = self.samples[0], self.samples[-1]
        if t1 - t0 < MIN_SPAN_S or d1 <= d0:
            return None
        if d1 >= self.total:
            return 0.0
        return (self.total - d1) / ((d1 - d0) / (t1 - t0))


class WholeRun:
    """The run as one bar and one ETA across its phases (conversations, success checks,
    judging): each phase's done/total is kept, the bar shows their sums, and one clock over the
    summed count gives the ETA (it is never reset by a phase change)."""

    def __init__(self) -> None:
        self.phases: dict[str, tuple[int, int]] = {}
        self.clock = EtaClock()

    def start(self, traj_done: int, traj_total: int, pairs_done: int, pairs_total: int) -> None:
        self.phases = {
            "trajectories": (traj_done, traj_total),
            "judging": (pairs_done, pairs_total),
        }
        self.clock = EtaClock()

    def update(self, phase: str, done: int, total: int, now: float) -> None:
        self.phases[phase] = (done, total)
        self.clock.update("run", self.done, self.total, now)

    @property
    def done(self) -> int:
        return sum(d for d, _ in self.phases.values())

    @property
    def total(self) -> int:
        return sum(t for _, t in self.phases.values())

    def get(self, phase: str) -> tuple[int, int]:
        return self.phases.get(phase, (0, 0))

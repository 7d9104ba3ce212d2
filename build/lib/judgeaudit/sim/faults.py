"""Fault and latency decisions, reproducible per (request, attempt number)."""

from __future__ import annotations

import random
from collections import Counter
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

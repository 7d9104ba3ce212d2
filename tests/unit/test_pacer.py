"""The client's pacing, on a fake clock: declared rpm/tpm are kept exactly, the adaptive mode
slows down when 429s are a real share of the calls and ignores a gateway's usual stray 429s."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from judgeaudit.llm.limits import Pacer, RateLimit


class FakeTime:
    """A clock that only moves when the pacer sleeps (or the test says so)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    clock = FakeTime()
    monkeypatch.setattr("judgeaudit.llm.limits.asyncio.sleep", clock.sleep)
    return clock


def starts(pacer: Pacer, n: int, cost: int = 10) -> list[float]:
    async def go() -> list[float]:
        return [await pacer.acquire(cost) for _ in range(n)]

    return asyncio.run(go())


def test_declared_rpm_spaces_requests_exactly(fake: FakeTime) -> None:
    pacer = Pacer(RateLimit(rpm=120), clock=fake)
    moments = starts(pacer, 11)
    gaps = [b - a for a, b in itertools.pairwise(moments)]
    assert gaps == pytest.approx([0.5] * 10)  # 120 per minute = one every 0.5 s
    assert pacer.snapshot()["rps"] == 2.0 and pacer.snapshot()["mode"] == "declared"


def test_declared_tpm_waits_for_tokens_and_corrects_the_estimate(fake: FakeTime) -> None:
    pacer = Pacer(RateLimit(tpm=6000), clock=fake)  # 100 tokens a second, 100 banked
    messages: list[dict[str, Any]] = [{"role": "user", "content": "x" * 400}]
    cost = pacer.cost(messages, max_tokens=100)
    assert cost == 400 // 4 + 4 + 100
    first, second = starts(pacer, 2, cost)
    assert second - first == pytest.approx(cost / 100)  # the second waits for its tokens
    # The reply used far less than estimated: the difference is given back at once.
    pacer.settle(second, cost, used=20, completion=10)
    (third,) = starts(pacer, 1, 20)
    assert third - second < cost / 100


def test_undeclared_endpoint_is_unpaced_until_429s_pile_up(fake: FakeTime) -> None:
    pacer = Pacer(RateLimit(), clock=fake)
    assert pacer.rps is None and starts(pacer, 3) == [fake.now] * 3
    for _ in range(100):  # 100 calls a second get through
        fake.now += 0.01
        pacer.settle(fake.now, 10, 10, 5)
    for _ in range(2):  # two 429s: stray, below any limit signal
        pacer.rate_limited(fake.now)
    assert pacer.rps is None
    for _ in range(20):
        fake.now += 0.001
        pacer.rate_limited(fake.now)
    assert pacer.rps is not None and pacer.rps <= 0.9 * 100 + 1e-9
    assert pacer.snapshot()["rate_limited"] == 22


def test_adaptive_rate_grows_back_while_calls_succeed(fake: FakeTime) -> None:
    pacer = Pacer(RateLimit(), clock=fake)
    for _ in range(50):
        fake.now += 0.02
        pacer.settle(fake.now, 10, 10, 5)
    for _ in range(10):
        pacer.rate_limited(fake.now)
    paced = pacer.rps
    assert paced is not None
    starts(pacer, int(paced * 10))  # ten seconds of calls at the paced rate
    assert pacer.rps is not None and pacer.rps > paced * 1.2


def test_a_gateway_that_always_refuses_five_percent_is_not_a_limit(fake: FakeTime) -> None:
    pacer = Pacer(RateLimit(), clock=fake)
    for i in range(2000):  # 200 calls a second for 10 s, every 20th one a 429
        fake.now += 0.005
        if i % 20 == 0:
            pacer.rate_limited(fake.now)
        else:
            pacer.settle(fake.now, 10, 10, 5)
    assert pacer.rps is None


def test_429s_for_calls_sent_before_a_slow_down_do_not_slow_down_again(fake: FakeTime) -> None:
    pacer = Pacer(RateLimit(), clock=fake)
    for _ in range(100):
        fake.now += 0.01
        pacer.settle(fake.now, 10, 10, 5)
    sent_early = fake.now - 0.001  # let go just before the slow-down below
    for _ in range(10):
        pacer.rate_limited(fake.now)
    first = pacer.rps
    fake.now += 1.0
    for _ in range(30):  # the rest of the old burst comes back refused
        pacer.rate_limited(sent_early)
    assert pacer.rps == first


def test_a_call_slower_than_the_window_is_counted_without_a_crash(fake: FakeTime) -> None:
    pacer = Pacer(RateLimit(), clock=fake)
    let_go = fake.now
    fake.now += 60  # a call that took a minute (a busy machine, a slow gateway)
    pacer.settle(let_go, 10, 10, 5)
    pacer.rate_limited(let_go)
    assert pacer.rps is None and pacer.snapshot()["rate_limited"] == 1

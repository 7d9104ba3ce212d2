"""The CLI's progress ETA on a resumed run counts the rate of this process's own work (a new
user's resumed run said `286/630 eta 35s` with at least 69 s left, and the ETA grew as the run
advanced: the units stored by the earlier process were counted as done in no time)."""

from __future__ import annotations

import pytest

from judgeaudit.audit.units.usage import Usage


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("stored_before", "total", "eta_by_hand"),
    [
        (286, 630, 162.0),  # (630 - 306) pairs left at 20 pairs / 10 s (the old code: 10.6 s)
        (0, 620, 300.0),  # a fresh run: (620 - 20) left at the same 2 pairs a second
    ],
    ids=["resumed", "fresh"],
)
def test_the_eta_divides_what_is_left_by_this_process_own_rate(
    monkeypatch: pytest.MonkeyPatch, stored_before: int, total: int, eta_by_hand: float
) -> None:
    clock = Clock()
    monkeypatch.setattr("judgeaudit.audit.units.usage.time.monotonic", clock)
    usage = Usage()
    usage.start_phase("judging", total, stored_before)
    clock.now += 10.0
    usage.counters.done += 20  # twenty pairs stored by this process in ten seconds
    progress = usage.progress({}, force=True)
    assert progress is not None
    assert progress.done == stored_before + 20 and progress.total == total
    assert progress.eta_s == pytest.approx(eta_by_hand)

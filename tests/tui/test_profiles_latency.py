"""The Profiles screen shows each profile's last speed test (`profile test --all`): TTFT p50/p95
measured against the embedded server, as CC Switch's speed test column does."""

from __future__ import annotations

import asyncio

import pytest

from judgeaudit.profiles import latency
from judgeaudit.profiles.model import profile_from_dict
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.fit_table import FitTable
from tests.tui.helpers import make_app, settle
from tests.tui.test_profiles_state import profiles


def test_speed_test_column(
    isolated: ProfileStore, sim_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPEED_KEY", "fake-speed-key")
    data = {"name": "speedy", "app": "codex", "base_url": sim_url, "key_env": "SPEED_KEY"}
    isolated.save(profile_from_dict({**data, "model": "sim-chat:latency_ms=50"}, "test"))
    timings = latency.time_all(isolated, calls=3, names=["speedy"])
    latency.save(isolated.root, timings)
    (timing,) = timings
    assert len(timing.ttft_ms) == 3 and timing.p50 is not None and timing.p50 >= 50

    async def go() -> dict[str, str]:
        app = make_app(isolated)
        async with app.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            rows = profiles(app).query_one(FitTable).rows_data
            return {key: str(row["ttft"]) for key, row in rows}

    cells = asyncio.run(go())
    assert cells["speedy"] == f"{timing.p50:.0f}/{timing.p95:.0f} ms"
    assert cells["taotoken-claude"] == "-"  # never timed

"""Audits against a gateway that answers 429 above R requests/s (the embedded provider's token
bucket): with a declared rpm the run never meets a 429, with none it adapts; either way no unit
fails and the progress events (and the CLI's progress line) show the limit in force."""

from __future__ import annotations

import asyncio
import io
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.audit import events as ev
from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner
from judgeaudit.audit.spec import SpecError
from judgeaudit.cli.display import ProgressDisplay
from tests.helpers import sim_server, write_refund_pairs

RATE = 5  # requests a second the gateway allows


def write_run(
    folder: Path, url: str, pairs: int, rpm: float | None, transport: str = "direct"
) -> Path:
    write_refund_pairs(folder, pairs)
    declared = f"rpm = {rpm}\n" if rpm else ""
    declared += f"fast_path = {'true' if transport == 'direct' else 'false'}\n"
    spec = folder / "spec.toml"
    spec.write_text(
        '[run]\nname = "limited"\nimported = "pairs.jsonl"\nconcurrency = 8\n'
        f'[endpoints.gw]\nbase_url = "{url}"\nkey_env = "GW_KEY"\n{declared}'
        '[judge]\nmodel = "judge-default"\nendpoint = "gw"\n'
    )
    return spec


def audit(
    spec: Path, out: Path, transport: str = "direct"
) -> tuple[ev.RunFinished, list[ev.Event], int, int]:
    events: list[ev.Event] = []
    runner = AuditRunner(load_spec(spec), out, on_event=events.append, keys=lambda _: "k")
    finished = asyncio.run(runner.run())
    assert runner.endpoints is not None and runner.endpoints.clients["gw"].path == transport
    db = sqlite3.connect(out / "audit.db")
    calls, attempts = db.execute("SELECT COUNT(*), SUM(attempts) FROM calls").fetchone()
    db.close()
    return finished, events, calls, attempts


@pytest.fixture
def gateway(tmp_path: Path) -> Any:
    config = tmp_path / "sim.toml"
    config.write_text(f"[faults]\nrate_limit_rps = {RATE}\n")
    with sim_server(config=config) as url:
        yield url


def last_pacing(events: list[ev.Event]) -> dict[str, Any]:
    progress = [e for e in events if isinstance(e, ev.Progress)]
    return progress[-1].rate_limits["gw"]


def test_declared_rpm_never_meets_a_429(gateway: str, tmp_path: Path, transport: str) -> None:
    spec = write_run(tmp_path, gateway, pairs=8, rpm=RATE * 60, transport=transport)
    finished, events, calls, attempts = audit(spec, tmp_path / "out", transport)
    assert finished.complete and not [e for e in events if isinstance(e, ev.UnitFailed)]
    assert calls == 16 and attempts == calls  # not one retry: the client kept to the limit
    assert last_pacing(events) == {
        "mode": "declared",
        "rps": float(RATE),
        "rpm": RATE * 60,
        "tpm": None,
        "rate_limited": 0,
    }


def test_undeclared_limit_is_found_by_its_429s_and_no_unit_fails(
    gateway: str, tmp_path: Path, transport: str
) -> None:
    spec = write_run(tmp_path, gateway, pairs=40, rpm=None, transport=transport)
    finished, events, calls, attempts = audit(spec, tmp_path / "out", transport)
    assert finished.complete and not [e for e in events if isinstance(e, ev.UnitFailed)]
    assert calls == 80 and attempts > calls  # some calls met the limit and were retried
    pacing = last_pacing(events)
    assert pacing["mode"] == "adaptive" and pacing["rate_limited"] > 0
    assert pacing["rps"] is not None  # it paces itself now


def test_progress_line_shows_the_limit_in_force() -> None:
    stream = io.StringIO()
    pacing = {"mode": "adaptive", "rps": 4.7, "rpm": None, "tpm": None, "rate_limited": 12}
    event = ev.Progress(
        "judging", 3, 10, 6, 900, 0.0, 1, 0, 1.0, 6.0, 2.0, {"gw": [2, 8]}, {"gw": pacing}
    )
    ProgressDisplay(stream)(event)
    assert "limit gw 4.7 req/s (adaptive, 12 x 429)" in stream.getvalue()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("rpm = 0", "endpoints.gw.rpm: must be a number of requests per minute from 1"),
        ("tpm = -5", "endpoints.gw.tpm: must be a number of tokens per minute from 1"),
        ("rpm = nan", "endpoints.gw.rpm: nan is not a usable number"),  # the validation layer
        ('rpm = "fast"', "endpoints.gw.rpm"),
    ],
)
def test_bad_rate_limits_are_refused_naming_the_key(
    tmp_path: Path, line: str, message: str
) -> None:
    spec = write_run(tmp_path, "http://127.0.0.1:9/v1", pairs=1, rpm=None)
    spec.write_text(
        spec.read_text().replace('key_env = "GW_KEY"\n', f'key_env = "GW_KEY"\n{line}\n')
    )
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    assert message in str(info.value)

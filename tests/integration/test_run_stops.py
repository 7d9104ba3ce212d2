"""How a run stops: an endpoint that refuses connections stops it at once with the cause named
(undone if nothing was judged, exit 4 and resumable if something was), and Ctrl-C says how to
resume and leaves the derived files showing what was stored."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.audit_helpers import finished_run
from tests.cli_helpers import cli
from tests.helpers import sim_server


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return finished_run(tmp_path_factory.mktemp("stops"), 6)


@pytest.fixture()
def refused_url() -> Iterator[str]:
    """A loopback port that is bound but not listening: every connect is refused at once."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    finally:
        sock.close()


def rejudge_at(base: Path, out: Path, url: str) -> subprocess.CompletedProcess[str]:
    return cli(
        "rejudge",
        str(base),
        "--out",
        str(out),
        "--judge-endpoint",
        url,
        "--judge-key-env",
        "GATE_KEY",
        "--events",
        "jsonl",
        env={"GATE_KEY": "k-test"},
    )


def test_a_refused_endpoint_is_named_and_the_run_is_undone(
    base: Path, tmp_path: Path, refused_url: str
) -> None:
    done = rejudge_at(base, tmp_path / "rj", refused_url)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("judgeaudit: ") and "connection refused" in last
    assert refused_url in last and "timeout" not in last
    failed = [
        e for e in map(json.loads, done.stderr.splitlines()[:-1]) if e["event"] == "unit_failed"
    ]
    assert failed == [], "it stops at the first unit instead of failing every one"
    assert not (tmp_path / "rj").exists(), "nothing was judged, so nothing is left"


def test_an_endpoint_that_goes_away_mid_run_stops_it_with_exit_4_and_the_cause(
    base: Path, tmp_path: Path
) -> None:
    out = tmp_path / "gone"
    with sim_server() as url:
        first = rejudge_at(base, out, url)
        assert first.returncode == 0, first.stderr
    db = sqlite3.connect(out / "audit.db")
    with db:  # as an interrupted run leaves it: some pairs not stored yet
        db.execute("UPDATE runs SET status = 'running'")
        db.execute("DELETE FROM audit_pairs WHERE rowid IN (SELECT rowid FROM audit_pairs LIMIT 4)")
    kept = db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0]
    db.close()
    again = rejudge_at(base, out, url)  # the same command; nothing listens there any more
    assert again.returncode == 4, again.stderr
    last = again.stderr.strip().splitlines()[-1]
    assert "stopped" in last and "connection refused" in last and "rerun the same command" in last
    db = sqlite3.connect(out / "audit.db")
    assert db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0] == kept
    db.close()


@pytest.mark.parametrize(
    ("stop", "code", "said"),
    [
        (signal.SIGINT, 130, "interrupted"),
        # timeout(1), a CI job's end, systemctl stop: the default action left it 'running'
        (signal.SIGTERM, 143, "terminated (SIGTERM)"),
    ],
    ids=["ctrl-c", "sigterm"],
)
def test_ctrl_c_says_how_to_resume_and_the_csv_shows_the_stored_pairs(
    base: Path, tmp_path: Path, stop: signal.Signals, code: int, said: str
) -> None:
    out = tmp_path / "int"
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "judgeaudit", "rejudge", str(base), "--out", str(out)),
            *("--judge-model", "judge-default:latency_ms=1000", "--concurrency", "1"),
            *("--events", "jsonl"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
        # A shell's background job ignores SIGINT and children inherit that; a user's Ctrl-C
        # reaches a foreground process with the default action.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None and proc.stderr is not None
    for line in proc.stdout:  # wait for the first stored pair, then interrupt
        if json.loads(line)["event"] == "pair_done":
            break
    proc.send_signal(stop)
    proc.stdout.read()
    rest = proc.stderr.read()
    assert proc.wait(timeout=120) == code, rest[-3000:]
    last = rest.strip().splitlines()[-1]
    assert said in last and "rerun the same command to resume" in last
    db = sqlite3.connect(out / "audit.db")
    stored = db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0]
    status = db.execute("SELECT status FROM runs").fetchone()[0]
    db.close()
    rows = (out / "audit_pairs.csv").read_text(encoding="utf-8").splitlines()
    assert stored >= 1 and len(rows) == 1 + stored, "header plus every stored pair"
    assert status == "cancelled", "a stopped run is not left 'running'"
    report = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "report", str(out)], capture_output=True, text=True
    )
    assert "(cancelled)" in report.stdout

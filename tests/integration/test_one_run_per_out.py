"""One run writes an output directory at a time (a new user's two `judgeaudit run --out dual`
a second apart: the second died on a UNIQUE constraint, exit 70). The second is refused at
once in one line naming OUT and the process writing it; a killed run's lock goes with it."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from tests.audit_helpers import finished_run, write_spec
from tests.cli_helpers import JUDGEAUDIT, cli, cli_ok


def _trajectories(out: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{out / 'audit.db'}?mode=ro", uri=True, timeout=1)
        try:
            return int(db.execute("SELECT COUNT(*) FROM trajectories").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def test_a_second_run_into_a_busy_out_is_refused_and_a_killed_run_frees_it(
    tmp_path: Path,
) -> None:
    # judge calls that never answer: the first run stays busy until it is killed
    spec = write_spec(tmp_path / "spec.toml", judge="judge-default:latency_ms=600000")
    out = tmp_path / "dual"
    first = subprocess.Popen(
        [*JUDGEAUDIT, "run", str(spec), "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120  # a guard against a hang, not a condition
        while _trajectories(out) < 3:
            assert first.poll() is None, "the first run ended early"
            assert time.monotonic() < deadline, "the first run stored nothing"
            time.sleep(0.05)
        second = cli("run", str(spec), "--out", str(out), timeout=120)
        stored = _trajectories(out)
    finally:
        os.kill(first.pid, signal.SIGKILL)  # as a crash would end it
        first.wait()
    lines = second.stderr.strip().splitlines()
    assert second.returncode == 2, second.stderr
    assert lines == [
        f"judgeaudit: {out}: another run is writing to it (process {first.pid}); wait for it "
        "to end, or choose another output directory (nothing was written)"
    ]
    assert stored >= 3
    from judgeaudit.audit.store.out_lock import writing

    with writing(out):  # the kernel released the killed run's lock: a resume is not blocked
        pass


def test_the_refused_run_writes_nothing(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.toml")
    out = tmp_path / "out"
    out.mkdir()
    from judgeaudit.audit.store.out_lock import writing

    with writing(out):  # this process is "the other run"
        refused = cli("run", str(spec), "--out", str(out), timeout=120)
    assert refused.returncode == 2, refused.stderr
    assert f"{out}: another run is writing to it (process {os.getpid()})" in refused.stderr
    assert list(out.iterdir()) == []  # no audit.db, no report files


def _files(out: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under OUT with its bytes and modification time."""
    return {
        str(p.relative_to(out)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def test_an_export_into_an_out_a_run_is_writing_is_refused_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """`export files` and `export parquet` rewrite files a run writes (audit_pairs.csv,
    judge_logs.jsonl, manifest.json, audit_pairs.parquet): while a run holds OUT they are
    refused in one line, exit 2, and no file in OUT changes; reading it stays open to all."""
    from judgeaudit.audit.store.out_lock import writing

    out = finished_run(tmp_path, 2)
    before = _files(out)
    with writing(out):  # this process is the run writing OUT
        files = cli("export", "files", str(out), timeout=120)
        parquet = cli("export", "parquet", str(out), timeout=120)
        elsewhere = cli("export", "parquet", str(out), "--to", str(tmp_path / "pq"), timeout=120)
        report = cli("report", str(out), "--format", "json", timeout=120)
        after = _files(out)
    for what, done in (("files", files), ("parquet", parquet)):
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().splitlines() == [
            f"judgeaudit: export {what}: {out}: a run is writing to it (process {os.getpid()}); "
            "wait for it to end, then export again (nothing was written)"
        ]
    assert after == before
    assert elsewhere.returncode == 0 and (tmp_path / "pq" / "audit_pairs.parquet").is_file()
    assert report.returncode == 0, report.stderr  # a reader takes no lock

    (out / "audit_pairs.csv").unlink()  # with the run gone, export writes again
    cli_ok("export", "files", str(out), timeout=120)
    cli_ok("export", "parquet", str(out), timeout=120)
    assert (out / "audit_pairs.csv").read_bytes() == before["audit_pairs.csv"][0]

"""Resume after a real SIGKILL of a real `judgeaudit run` process, at two different moments."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.audit_helpers import write_spec

RESULT_COLUMNS = (
    "pair_id, success_a, success_b, judge_pref, judge_score_a, judge_score_b, "
    "reward_gap, misselected, pref_ab, pref_ba, consistent"
)


def _cmd(spec: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "judgeaudit",
        "run",
        str(spec),
        "--out",
        str(out),
        "--events",
        "jsonl",
        *extra,
    ]


def _run(spec: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_cmd(spec, out), capture_output=True, text=True, timeout=300)


def _count(db_path: Path, table: str) -> int:
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=1)
        try:
            return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def _results(out: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(out / "audit.db")
    return db.execute(f"SELECT {RESULT_COLUMNS} FROM audit_pairs ORDER BY pair_id").fetchall()


def _children_alive(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[object, ...]]]:
    base = tmp_path_factory.mktemp("ref")
    spec = write_spec(base / "spec.toml", judge="judge-default:malformed=0.2")
    done = _run(spec, base / "out")
    assert done.returncode == 0, done.stderr
    return spec, _results(base / "out")


@pytest.mark.parametrize(("table", "threshold"), [("trajectories", 40), ("audit_pairs", 30)])
def test_kill9_then_resume_equals_uninterrupted(
    tmp_path: Path, reference: tuple[Path, list[tuple[object, ...]]], table: str, threshold: int
) -> None:
    spec, expected = reference
    out = tmp_path / "out"
    proc = subprocess.Popen(
        _cmd(spec, out, "--concurrency", "2"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while _count(out / "audit.db", table) < threshold:
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    children = _children_alive(proc.pid)
    assert children, "the runner started the embedded provider as a child"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(1.0)
    for child in children:  # the embedded provider notices its parent is gone and exits
        assert (
            not Path(f"/proc/{child}").exists()
            or "zombie" in Path(f"/proc/{child}/status").read_text().lower()
        )
    assert _count(out / "audit.db", "audit_pairs") < len(expected)

    resumed = _run(spec, out)
    assert resumed.returncode == 0, resumed.stderr
    started = json.loads(resumed.stdout.splitlines()[0])
    assert started["event"] == "run_started" and started["resumed"] is True
    assert started["trajectories_done"] > 0

    assert _results(out) == expected
    db = sqlite3.connect(out / "audit.db")
    logs = db.execute("SELECT COUNT(*), COUNT(DISTINCT log_id) FROM judge_logs").fetchone()
    assert logs[0] == logs[1]
    lines = (out / "judge_logs.jsonl").read_text().splitlines()
    ids = [json.loads(line)["log_id"] for line in lines]
    assert len(ids) == len(set(ids)) == logs[0]
    csv_rows = (out / "audit_pairs.csv").read_text().splitlines()
    assert len(csv_rows) == len(expected) + 1


def _imported_spec(folder: Path, pairs: int) -> Path:
    """A judge-only run over ``pairs`` imported pairs (four agents, so trajectories repeat)."""
    with (folder / "pairs.jsonl").open("w", encoding="utf-8") as handle:
        for i in range(pairs):
            a, b = f"agent-{i % 4}", f"agent-{(i + 1) % 4}"  # agent-k succeeds when k is even
            turns = [{"role": "user", "content": f"refund order O-{i // 3}"}]
            row = {
                "task_id": f"t{i // 3:04d}",
                "task": f"Refund order O-{i // 3}.",
                "agent_a": a,
                "agent_b": b,
                "trajectory_a": [*turns, {"role": "agent", "content": f"{a}: refunded"}],
                "trajectory_b": [*turns, {"role": "agent", "content": f"{b}: refunded"}],
                "success_a": (i + 1) % 2,  # one label per agent on every row
                "success_b": i % 2,
            }
            handle.write(json.dumps(row) + "\n")
    spec = folder / "spec.toml"
    spec.write_text(
        '[run]\nname = "imp"\nimported = "pairs.jsonl"\nconcurrency = 4\n'
        '[endpoints.sim]\nbase_url = "embedded"\n'
        '[judge]\nmodel = "judge-default:latency_ms=5"\nendpoint = "sim"\n',
        encoding="utf-8",
    )
    return spec


def test_kill9_of_an_imported_run_resumes_with_every_pair_and_trajectory_once(
    tmp_path: Path,
) -> None:
    """An import's trajectories are stored while its first pairs are judged: a kill at any
    point leaves no pair without its trajectories, and the rerun stores each row once."""
    spec = _imported_spec(tmp_path, 600)
    reference = _run(spec, tmp_path / "ref")
    assert reference.returncode == 0, reference.stderr
    out = tmp_path / "out"
    proc = subprocess.Popen(_cmd(spec, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _count(out / "audit.db", "audit_pairs") < 60:
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    db = sqlite3.connect(out / "audit.db")
    orphans = db.execute(
        "SELECT COUNT(*) FROM audit_pairs p WHERE NOT EXISTS (SELECT 1 FROM trajectories t"
        " WHERE t.run_id = p.run_id AND t.task_id = p.task_id AND t.agent = p.agent_a)"
        " OR NOT EXISTS (SELECT 1 FROM trajectories t WHERE t.run_id = p.run_id"
        " AND t.task_id = p.task_id AND t.agent = p.agent_b)"
    ).fetchone()[0]
    assert orphans == 0
    db.close()

    resumed = _run(spec, out)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout.splitlines()[0])["resumed"] is True
    assert _results(out) == _results(tmp_path / "ref")
    db = sqlite3.connect(out / "audit.db")
    for table, key in (("trajectories", "traj_id"), ("audit_pairs", "pair_id")):
        rows, distinct = db.execute(
            f"SELECT COUNT(*), COUNT(DISTINCT {key}) FROM {table}"
        ).fetchone()
        assert rows == distinct
    assert db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0] == 600
    ref = sqlite3.connect(tmp_path / "ref" / "audit.db")
    stored = "SELECT traj_id, events, success FROM trajectories ORDER BY traj_id"
    assert db.execute(stored).fetchall() == ref.execute(stored).fetchall()

"""A recorded run stores its rows in transactions of many batches (``prepared.COMMIT_PAIRS``).
Stopped while a transaction is open, after earlier ones committed (``kill -9``; Ctrl-C and
SIGTERM, which must stop it at the next batch, not after its last pair), the same command
resumes it to exactly the rows, in the same order, an uninterrupted run stores: on the path that
trusts the import's record and on the one that validates the file again."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import cli

#: The run with small batches (100 pairs) and commits (every 500), sent the signal in argv[1]
#: after its 7th batch: 5 batches committed, 2 in the open transaction.
KILLED = """
import os, signal, sys
sent = getattr(signal, sys.argv.pop(1), None)
import judgeaudit.audit.inputs.recorded_verdicts as rv
from judgeaudit.audit.store import prepared
rv.BATCH, rv.COMMIT_PAIRS = 100, 500
add, calls = prepared.Grouped.add, []
def killing_add(self, write, units, tag):
    add(self, write, units, tag)
    calls.append(tag)
    if len(calls) == 7 and sent is not None:
        os.kill(os.getpid(), sent)
prepared.Grouped.add = killing_add
from judgeaudit.cli import main
sys.exit(main(sys.argv[1:]))
"""
SPEC = (
    '[run]\nname = "resume"\nimported = "pairs.jsonl"\n[gap]\nsource = "judge"\n'
    '[judge]\nsource = "recorded"\n'
)
PAIRS = 1_200
#: What each table is compared on: every column but the time it was written, in rowid order.
TABLES = {
    "audit_pairs": "pair_id",
    "trajectories": "traj_id",
    "judge_logs": "log_id",
    "tasks": "task_id",
}


def _log(path: Path) -> None:
    rng = random.Random(3)
    lines = []
    for i in range(PAIRS):
        a, b = rng.sample(["pol-a", "pol-b", "pol-c", "pol-d"], 2)
        lines.append({"pair_id": f"p{i}", "task_id": f"t{rng.randrange(90)}", "trial": i,
                      "task_type": "refund", "agent_a": a, "agent_b": b,
                      "success_a": rng.randrange(2), "success_b": rng.randrange(2)})  # fmt: skip
        for order in ("AB", "BA"):
            lines.append({"type": "verdict", "pair_id": f"p{i}", "order": order,
                          "winner": rng.choice("AB"), "score_a": rng.randrange(5),
                          "score_b": rng.randrange(5)})  # fmt: skip
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _status(out: Path) -> str:
    db = sqlite3.connect(f"{(out / 'audit.db').as_uri()}?mode=ro", uri=True)
    try:
        return str(db.execute("SELECT status FROM runs").fetchone()[0])
    finally:
        db.close()


def _rows(out: Path) -> dict[str, list[tuple[object, ...]]]:
    db = sqlite3.connect(f"{(out / 'audit.db').as_uri()}?mode=ro", uri=True)
    try:
        found = {}
        for table, key in TABLES.items():
            names = [
                r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] != "created_at"
            ]
            columns = ", ".join(f'"{n}"' for n in names)
            found[table] = db.execute(f"SELECT {columns} FROM {table} ORDER BY rowid").fetchall()
            assert len({r[names.index(key)] for r in found[table]}) == len(found[table])
        return found
    finally:
        db.close()


#: signal -> the run's exit code and runs.status when it stops
STOPS = {"SIGKILL": (-signal.SIGKILL, "running"), "SIGINT": (130, "cancelled"),
         "SIGTERM": (143, "cancelled")}  # fmt: skip


@pytest.mark.parametrize("sent", list(STOPS))
@pytest.mark.parametrize("path", ["trusted", "validated"])
def test_a_recorded_run_stopped_mid_transaction_resumes_to_the_uninterrupted_rows(
    tmp_path: Path, path: str, sent: str
) -> None:
    _log(tmp_path / "log.jsonl")
    assert cli("import", "recorded-jsonl", str(tmp_path / "log.jsonl"), "--out",
               str(tmp_path / "pairs.jsonl")).returncode == 0  # fmt: skip
    if path == "validated":  # no record: the run checks every line again and copies the rows
        (tmp_path / "pairs.jsonl.checked.json").unlink()
    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")
    spec, out, whole = tmp_path / "spec.toml", tmp_path / "out", tmp_path / "whole"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED, sent, "run", str(spec), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    code, status = STOPS[sent]
    assert killed.returncode == code, killed.stderr
    stored = _rows(out)
    assert len(stored["audit_pairs"]) == 500  # the open transaction's pairs are gone
    assert _status(out) == status
    if sent != "SIGKILL":
        assert "rerun the same command to resume" in killed.stderr
    resumed = cli("run", str(spec), "--out", str(out))
    assert resumed.returncode == 0, resumed.stderr
    assert cli("run", str(spec), "--out", str(whole)).returncode == 0
    again, expected = _rows(out), _rows(whole)
    assert len(expected["audit_pairs"]) == PAIRS
    assert len(expected["judge_logs"]) == 2 * PAIRS
    for table in TABLES:
        assert again[table] == expected[table], table


def test_a_rerun_of_a_finished_recorded_run_never_counts_backwards(tmp_path: Path) -> None:
    """Resuming passes over the stored pairs again (``INSERT OR IGNORE``): its progress starts
    at what is stored and never drops (it went from 1,200 back to 500)."""
    _log(tmp_path / "log.jsonl")
    assert cli("import", "recorded-jsonl", str(tmp_path / "log.jsonl"), "--out",
               str(tmp_path / "pairs.jsonl")).returncode == 0  # fmt: skip
    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")
    argv = [sys.executable, "-c", KILLED, "NONE", "run", str(tmp_path / "spec.toml"), "--out",
            str(tmp_path / "out"), "--events", "jsonl"]  # fmt: skip
    for _attempt in ("first", "again"):
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    counts = [e["done"] for e in events if e["event"] == "progress"]
    started = next(e for e in events if e["event"] == "run_started")
    assert started["pairs_done"] == PAIRS and counts and min(counts) == PAIRS


#: The run with the same small batches as KILLED, printing how many batches it wrote.
COUNTED = """
import atexit, sys
import judgeaudit.audit.inputs.recorded_verdicts as rv
from judgeaudit.audit.store import prepared
rv.BATCH, rv.COMMIT_PAIRS = 100, 500
add, calls = prepared.Grouped.add, []
def counting_add(self, write, units, tag):
    calls.append(tag)
    add(self, write, units, tag)
prepared.Grouped.add = counting_add
atexit.register(lambda: print(f"batches written: {calls}", file=sys.stderr))
from judgeaudit.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _written(done: subprocess.CompletedProcess[str]) -> list[int]:
    line = next(x for x in done.stderr.splitlines() if x.startswith("batches written: "))
    return [int(tag) for tag in json.loads(line.removeprefix("batches written: "))]


def test_a_resumed_trusted_run_stores_from_where_it_stopped(tmp_path: Path) -> None:
    """A recorded run killed after 500 of 1,200 pairs resumes at pair 501: it builds and writes
    the 7 batches it lacks, not all 12 again (a 5M-pair run killed near its end took as long to
    resume as to run), and ends with the rows of an uninterrupted run; run again once finished,
    it writes nothing."""
    _log(tmp_path / "log.jsonl")
    assert cli("import", "recorded-jsonl", str(tmp_path / "log.jsonl"), "--out",
               str(tmp_path / "pairs.jsonl")).returncode == 0  # fmt: skip
    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")
    spec, out, whole = tmp_path / "spec.toml", tmp_path / "out", tmp_path / "whole"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED, "SIGKILL", "run", str(spec), "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL and len(_rows(out)["audit_pairs"]) == 500
    argv = [sys.executable, "-c", COUNTED, "run", str(spec), "--out", str(out)]
    resumed = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert _written(resumed) == [600, 700, 800, 900, 1000, 1100, 1200]
    assert cli("run", str(spec), "--out", str(whole)).returncode == 0
    assert _rows(out) == _rows(whole)
    again = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert _written(again) == []
    assert _rows(out) == _rows(whole)


#: The run, sent SIGINT by itself as it starts writing its files after its last pair.
LATE = """
import os, signal, sys
import judgeaudit.audit.runner as runner
export_all = runner.export_all
def stopped_export(*args, **kwargs):
    if kwargs.get("final"):
        os.kill(os.getpid(), signal.SIGINT)
    return export_all(*args, **kwargs)
runner.export_all = stopped_export
from judgeaudit.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_ctrl_c_while_the_files_are_written_is_answered(tmp_path: Path) -> None:
    """Ctrl-C after the last pair, while the run writes its files, has no step left to stop at:
    the run finished as if it had not been pressed, in silence (a new user pressed it twice and
    waited 20 s each time). It says so."""
    _log(tmp_path / "log.jsonl")
    assert cli("import", "recorded-jsonl", str(tmp_path / "log.jsonl"), "--out",
               str(tmp_path / "pairs.jsonl")).returncode == 0  # fmt: skip
    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", LATE, "run", str(tmp_path / "spec.toml"), "--out",
         str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "the stop (Ctrl-C or SIGTERM) came while the run wrote its files" in done.stderr
    assert "every pair was stored, so the run finished; nothing to resume" in done.stderr
    assert _status(tmp_path / "out") == "finished"
    assert len(_rows(tmp_path / "out")["audit_pairs"]) == PAIRS

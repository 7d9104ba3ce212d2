"""How the store writes around an audit's judge calls (issue 23 goal 6, docs/benchmarks.md):
imported trajectories a chunk to a transaction (not a commit per 64), a prompt many pairs share
scrubbed and inserted once, and a finishing run's Parquet copy written in a thread beside the
CSV, which never outlives a failed export."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.audit.export import PAIRS_CSV, export_all
from judgeaudit.audit.inputs import imported
from judgeaudit.audit.inputs.imported import parse_pair, save_imported
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.units.work import ImportedPair

#: A key shape (``sk-`` then 8+ characters) that is not a real key.
KEY = "sk-PROMPT-canary-" + "0a1b2c3d4e5f"


def _pairs(count: int) -> list[ImportedPair]:
    return [
        parse_pair(
            {
                "task_id": f"t{i}",
                "task": "Refund order O-1.",
                "agent_a": "x",
                "agent_b": "y",
                "trajectory_a": [{"role": "agent", "content": f"refunded {i}"}],
                "trajectory_b": "user: refund please\nagent: done",
                "success_a": 1,
                "success_b": i % 2,
            },
            f"pairs.jsonl:{i + 1}",
        )
        for i in range(count)
    ]


def _store(tmp_path: Path, run_id: str = "r") -> AuditStore:
    store = AuditStore(tmp_path / "audit.db")
    store.create_run(run_id, "h", {"run_id": run_id})
    return store


def _traced(store: AuditStore) -> list[str]:
    statements: list[str] = []
    store.db.set_trace_callback(statements.append)  # every statement SQLite runs, row by row
    return statements


def test_imported_trajectories_take_one_transaction_per_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(tmp_path)
    statements = _traced(store)
    save_imported(store, "r", _pairs(300), set())
    assert statements.count("COMMIT") == 1  # it was 9: one per 64 queued trajectories
    store.db.set_trace_callback(None)
    assert len(store.done_trajectories("r")) == 600

    monkeypatch.setattr(imported, "SAVE_CHUNK", 250)
    store.create_run("r2", "h", {"run_id": "r2"})
    statements = _traced(store)
    save_imported(store, "r2", _pairs(300), set())
    assert statements.count("COMMIT") == 3  # 250, 250, 100
    store.db.set_trace_callback(None)
    assert len(store.done_trajectories("r2")) == 600
    store.close()


def _save_pair(store: AuditStore, i: int, prompts: dict[str, str]) -> None:
    pair_id = f"r/t{i}"
    row = {"pair_id": pair_id, "run_id": "r", "task_id": f"t{i}", "agent_a": "x",
           "agent_b": "y", "success_a": 1, "success_b": 0, "judge_pref": "A"}  # fmt: skip
    log = {"log_id": f"{pair_id}/AB/0", "pair_id": pair_id, "run_id": "r", "role": "judge",
           "model": "m", "prompt_hash": "p1", "raw_output": "{}"}  # fmt: skip
    call = {"run_id": "r", "scope": pair_id, "role": "judge", "model": "m"}
    store.save_pair(row, store.scrub("judge_logs", [log]), [call], prompts)


def test_a_prompt_many_pairs_share_is_inserted_once_and_scrubbed(tmp_path: Path) -> None:
    store = _store(tmp_path)
    messages = json.dumps([{"role": "user", "content": f"judge this; my key is {KEY}"}])
    statements = _traced(store)
    assert not store.has_prompt("p1")
    for i in range(100):
        _save_pair(store, i, {"p1": messages})
        assert store.has_prompt("p1")  # the runner does not render it again
    store.flush()
    store.db.set_trace_callback(None)
    inserts = [s for s in statements if s.startswith("INSERT OR IGNORE INTO prompts")]
    assert len(inserts) == 1  # it was 100, each scrubbed before SQLite ignored it
    stored = store.db.execute("SELECT prompt_hash, messages_json FROM prompts").fetchall()
    assert [r[0] for r in stored] == ["p1"]
    assert KEY not in stored[0][1] and "judge this" in stored[0][1]
    assert store.db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0] == 100
    store.close()


def _parquet_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "judgeaudit-parquet"]


def _finished_run(tmp_path: Path) -> AuditStore:
    store = _store(tmp_path)
    for i in range(3):
        _save_pair(store, i, {})
    store.set_status("r", "finished")
    return store


def test_a_failing_parquet_copy_fails_the_export_and_leaves_no_thread(tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    store = _finished_run(tmp_path)
    blocker = tmp_path / "audit_pairs.parquet"  # a directory with a file: the copy cannot land
    blocker.mkdir()
    (blocker / "keep").write_text("")
    with pytest.raises(OSError):
        export_all(store, "r", tmp_path, final=True)
    assert _parquet_threads() == []
    # the CSV was written meanwhile, in full
    assert (tmp_path / PAIRS_CSV).read_text().count("\n") == 4
    store.close()


def test_a_failing_csv_waits_for_the_parquet_copy(tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    store = _finished_run(tmp_path)
    os.mkfifo(tmp_path / PAIRS_CSV)  # refused before anything is written to it
    with pytest.raises(Exception, match="FIFO"):
        export_all(store, "r", tmp_path, final=True)
    assert _parquet_threads() == []  # no thread writes into OUT after the export raised
    assert not list(tmp_path.glob(".export-*"))  # nor left its work directory behind
    store.close()


def test_the_final_export_writes_the_same_parquet(tmp_path: Path) -> None:
    """The copy made in a thread over its own connection holds the store's rows."""
    duckdb = pytest.importorskip("duckdb")
    store = _finished_run(tmp_path)
    summary: dict[str, Any] = export_all(store, "r", tmp_path, final=True)
    assert summary["parquet"] is True and summary["pairs"] == 3
    rows = duckdb.sql(
        f"SELECT pair_id, seq FROM '{tmp_path / 'audit_pairs.parquet'}' ORDER BY seq"
    ).fetchall()
    assert rows == [("r/t0", 1), ("r/t1", 2), ("r/t2", 3)]
    store.close()

"""A task file written as docs/audit.md shows it runs a real audit on the embedded provider: its
instruction is the request alone, and the simulated customer used to open every conversation
with "That doesn't solve my problem. <blocked>" unless it began "Opening request: " (a new
user's trial: 0 decisive pairs, exit 0, no warning)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.audit_helpers import write_spec
from tests.cli_helpers import cli

AUDIT_MD = Path(__file__).resolve().parents[2] / "docs" / "audit.md"


def docs_task() -> str:
    """The one-task file docs/audit.md shows (its ``json`` block that holds an instruction)."""
    blocks = AUDIT_MD.read_text(encoding="utf-8").split("```json\n")[1:]
    task = next(b.split("```", 1)[0].strip() for b in blocks if '"instruction"' in b)
    assert json.loads(task)["instruction"].startswith("I'd like a refund")
    return task


def test_the_docs_task_file_gets_real_conversations_and_decisive_pairs(tmp_path: Path) -> None:
    (tmp_path / "tasks.jsonl").write_text(docs_task() + "\n", encoding="utf-8")
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl", trials=2)
    out = tmp_path / "out"
    done = cli("run", str(spec), "--out", str(out), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    db = sqlite3.connect(out / "audit.db")
    try:
        firsts = [
            json.loads(events)[0]
            for (events,) in db.execute("SELECT events FROM trajectories ORDER BY agent, trial")
        ]
        decisive = db.execute(
            "SELECT COUNT(*) FROM audit_pairs WHERE success_a != success_b"
        ).fetchone()[0]
        succeeded = db.execute("SELECT COUNT(*) FROM trajectories WHERE success = 1").fetchone()[0]
    finally:
        db.close()
    request = "I'd like a refund for item SKU-103 in order O-1001."
    assert firsts and all(e == {"role": "user", "content": request} for e in firsts), firsts[:2]
    assert succeeded > 0 and decisive > 0

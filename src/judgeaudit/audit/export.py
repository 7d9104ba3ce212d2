"""Files derived from the database: ``audit_pairs.csv``, ``judge_logs.jsonl``, ``manifest.json``.

They are rebuilt atomically from ``audit.db`` at the start and end of every run, so a crash in
the middle of an append can never leave a duplicate or half line behind after the next run.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

from judgeaudit.audit.store import LOG_COLUMNS, PAIR_COLUMNS, AuditStore
from judgeaudit.fsutil import atomic_write_text

PAIRS_CSV = "audit_pairs.csv"
LOGS_JSONL = "judge_logs.jsonl"
MANIFEST = "manifest.json"


def log_json(row: sqlite3.Row) -> str:
    data: dict[str, Any] = {name: row[name] for name in LOG_COLUMNS}
    data["parsed_json"] = json.loads(row["parsed_json"]) if row["parsed_json"] else None
    return json.dumps(data, ensure_ascii=False)


def append_logs(out: Path, store: AuditStore, log_ids: list[str]) -> None:
    """Append just-committed judge calls to the live JSONL (for ``tail -f``)."""
    if not log_ids:
        return
    marks = ",".join("?" for _ in log_ids)
    rows = store.db.execute(
        f'SELECT * FROM judge_logs WHERE log_id IN ({marks}) ORDER BY "order", attempt', log_ids
    ).fetchall()
    with (out / LOGS_JSONL).open("a", encoding="utf-8") as handle:
        handle.write("".join(log_json(r) + "\n" for r in rows))


def export_all(store: AuditStore, run_id: str, out: Path, final: bool = False) -> dict[str, Any]:
    """Rewrite the derived files for ``run_id``; return a small summary of the run."""
    rows = store.db.execute(
        "SELECT * FROM audit_pairs WHERE run_id = ? ORDER BY pair_id", (run_id,)
    ).fetchall()
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(PAIR_COLUMNS)
    writer.writerows([row[c] for c in PAIR_COLUMNS] for row in rows)
    atomic_write_text(out / PAIRS_CSV, buffer.getvalue())
    logs = "".join(log_json(r) + "\n" for r in store.iter_logs(run_id))
    atomic_write_text(out / LOGS_JSONL, logs)
    manifest = store.manifest(run_id)
    run = store.run(run_id)
    manifest["status"] = run["status"] if run else "unknown"
    manifest["usage"] = store.usage(run_id)
    atomic_write_text(out / MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
    decisive = [r for r in rows if r["success_a"] != r["success_b"]]
    return {
        "pairs": len(rows),
        "decisive": len(decisive),
        "misselected": sum(r["misselected"] for r in rows),
        "usage": manifest["usage"],
    }

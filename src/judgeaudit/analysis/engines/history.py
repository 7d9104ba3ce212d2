"""A Parquet history (``import recorded-jsonl … --parquet DIR``) read as a run's output directory.

The pairs are the ``period=…/*.parquet`` shards, which DuckDB or Spark aggregate. What audit.db
keeps beside the pairs sits next to each shard as ``RUN.run.json`` (:class:`RunRecords`): the
manifest (gap source, bins, labels, period, task set), the kept verdict counts, the judge models
and prompt hashes that gave the verdicts, and the style section fitted at import (the
conversations themselves are not kept). :func:`records_db` lays those records out as an
in-memory database with audit.db's schema and no pairs, so the report and the trend read a
history through the same queries they read an OUT with: no figure has a second formula.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.audit.store.history_db import KEPT, RecordRow
from judgeaudit.audit.store.history_db import records_db as store_records_db
from judgeaudit.audit.store.schema import has_table
from judgeaudit.errors import InputError
from judgeaudit.fsutil import atomic_write_text

RUN_SUFFIX = ".run.json"
FORMAT = "judgeaudit-history/1"


@dataclass(frozen=True)
class RunRecords:
    """One imported period's records, written beside its Parquet shard."""

    run_id: str
    period: str
    created_at: str
    spec_hash: str
    manifest: dict[str, Any]
    #: kept_verdict_counts' rows: judge_model, orders, missing, calls, failed, pairs, without,
    #: decisive_without
    verdict_counts: list[list[Any]]
    judge_models: list[str]
    prompt_hashes: list[str]
    style: dict[str, Any]
    pairs: int
    source: dict[str, Any]
    #: kept_task_counts' rows: judge_model, task_id, orders, missing (the no-verdict share's
    #: task-clustered interval; records written before it have none, and no interval)
    verdict_tasks: list[list[Any]] = field(default_factory=list)
    #: pairs of the day's log left out for want of a verdict (``trend`` shows them, as for a
    #: daily folder); None in records written before it was kept: not known, never claimed 0
    pairs_without_verdict: int | None = None

    def write(self, shard: Path) -> Path:
        path = shard / f"{safe_name(self.run_id)}{RUN_SUFFIX}"
        atomic_write_text(path, json.dumps({"format": FORMAT, **asdict(self)}, indent=1) + "\n")
        return path

    @classmethod
    def read(cls, path: Path) -> RunRecords:
        from judgeaudit import safeio

        # the one bounded reader: a FIFO, a device or a huge file is its one line, no hang
        raw = safeio.read_bytes(path, "history run records")
        try:
            data = safeio.parse_json(raw)
            if not isinstance(data, dict) or data.pop("format", None) != FORMAT:
                raise ValueError(f"format is not {FORMAT}")
            return cls(**data)
        except (OSError, ValueError, TypeError) as exc:
            raise InputError(
                f"{path}: not a history's run records ({str(exc).splitlines()[0][:120]}); "
                "re-import that period with `judgeaudit import recorded-jsonl … --parquet`"
            ) from None


def safe_name(run_id: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in run_id)


def is_history(path: Path) -> bool:
    """A directory of ``period=…/`` shards with their run records (and no audit.db)."""
    return (
        path.is_dir()
        and not (path / "audit.db").exists()
        and any(path.glob(f"period=*/*{RUN_SUFFIX}"))
    )


def history_runs(path: Path) -> list[RunRecords]:
    return [RunRecords.read(p) for p in sorted(path.glob(f"period=*/*{RUN_SUFFIX}"))]


def records_db(path: Path) -> sqlite3.Connection:
    """The history's run records as an in-memory audit.db without pairs (read-only use)."""
    return store_records_db(
        path,
        (
            RecordRow(
                run.run_id,
                run.spec_hash,
                json.dumps(run.manifest),
                run.created_at,
                run.verdict_counts,
                run.verdict_tasks,
                json.dumps([run.judge_models, run.prompt_hashes]),
                json.dumps(run.style),
            )
            for run in history_runs(path)
        ),
    )


def _kept(db: sqlite3.Connection, run_id: str, column: str) -> Any:
    if not has_table(db, KEPT):
        return None
    row = db.execute(f"SELECT {column} FROM {KEPT} WHERE run_id = ?", (run_id,)).fetchone()
    return None if row is None else json.loads(row[0])


def kept_style(db: sqlite3.Connection, run_id: str) -> dict[str, Any] | None:
    """The style section fitted when the period was imported (a history keeps no
    conversations to fit it again), or None for an audit.db."""
    found = _kept(db, run_id, "style")
    return found if isinstance(found, dict) else None


def kept_judges(db: sqlite3.Connection, run_id: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(judge models, prompt hashes) kept at import; empty for an audit.db."""
    found = _kept(db, run_id, "judges")
    if not found:
        return (), ()
    return tuple(found[0]), tuple(found[1])

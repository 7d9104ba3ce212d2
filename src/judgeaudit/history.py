"""``import recorded-jsonl FILE --parquet DIR``: one period of recorded verdicts added to a
Parquet history, with no audit.db left behind.

The history is a hive-partitioned directory that DuckDB writes::

    DIR/period=2026-11-03/RUN_0.parquet   the period's pairs (export parquet's columns + seq)
    DIR/period=2026-11-03/RUN.run.json    the run's records: manifest, verdict counts, judges,
                                          style section (what audit.db keeps beside the pairs)

The day's file is audited exactly as a daily recorded run is (``[judge] source = "recorded"``,
no model call), in a scratch output directory inside ``DIR/.import-*``, then exported and the
scratch deleted: so each pair's order-consistent verdict, ``misselected`` and capability are
the SQLite path's by construction, and no SQLite file ever holds more than one import. The
period directory appears by one rename when it is complete; bad input leaves nothing.
Sits with :mod:`judgeaudit.daily` above the engine (it runs an audit), below the CLI.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from judgeaudit.analysis.engines.history import RUN_SUFFIX, RunRecords
from judgeaudit.analysis.frame import open_db
from judgeaudit.analysis.judged_by import judged_by
from judgeaudit.analysis.why import style_section
from judgeaudit.audit.store.parquet_out import write_pairs
from judgeaudit.audit.store.verdict_counts import kept_task_counts, kept_verdict_counts
from judgeaudit.audit.units.period import period_of_name
from judgeaudit.daily import SPEC
from judgeaudit.engine import run_audit_blocking
from judgeaudit.errors import InputError
from judgeaudit.fsutil import atomic_write_text
from judgeaudit.rollouts.pairing import ImportSummary
from judgeaudit.rollouts.run import import_rollouts


@dataclass(frozen=True)
class HistoryImport:
    summary: ImportSummary
    run_id: str
    period: str
    pairs: int
    shard: Path


def import_to_history(
    files: list[Path], dest: Path, period: str | None, gap_source: str | None = None
) -> HistoryImport:
    """Audit ``files`` (one period of recorded-jsonl) and add the period to the history ``dest``."""
    if dest.exists() and not dest.is_dir():
        raise InputError(f"--parquet {dest}: not a directory; give the history's directory")
    if dest.is_dir() and (dest / "audit.db").exists():
        raise InputError(
            f"--parquet {dest}: holds an audit.db; give a directory of its own for the history"
        )
    named = period_of_name(files[0].stem) if len(files) == 1 else None
    dest.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=dest, prefix=".import-"))
    try:
        summary = import_rollouts(
            "recorded-jsonl", files, scratch / "pairs.jsonl", None, None, period or named
        )
        spec = SPEC.format(name=json.dumps(files[0].stem)[1:-1])
        if gap_source:
            spec += f'[gap]\nsource = "{gap_source}"\n'
        atomic_write_text(scratch / "spec.toml", spec)
        finished = run_audit_blocking(scratch / "spec.toml", scratch / "out")
        built = _export(scratch, finished.run_id, files, summary.without_verdict)
        into = dest / built.name
        if into.exists():
            owner = ", ".join(p.name for p in into.glob(f"*{RUN_SUFFIX}")) or "another import"
            raise InputError(
                f"--parquet {dest}: period {built.name.removeprefix('period=')} is already in "
                f"the history ({owner}); delete {into} to import this period again"
            )
        built.rename(into)  # the period appears whole, or not at all
        records = RunRecords.read(next(into.glob(f"*{RUN_SUFFIX}")))
        return HistoryImport(
            summary, records.run_id, records.period, records.pairs, next(into.glob("*.parquet"))
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        with contextlib.suppress(OSError):
            dest.rmdir()  # a first import that failed leaves no empty history behind


def _export(scratch: Path, run_id: str, files: list[Path], without_verdict: int) -> Path:
    """The scratch run's pairs as a ``period=…/`` shard with its records beside it."""
    db = open_db(scratch / "out")
    try:
        manifest = json.loads(
            db.execute("SELECT manifest FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0]
        )
        period = manifest.get("period")
        if not period:
            raise InputError(
                f"{files[0]}: no period: a history is partitioned by period; give --period "
                "(e.g. --period 2026-11-03), a `period` field on the pair lines, or name the "
                "file after its day (2026-11-03.jsonl)"
            )
        count = write_pairs(db, run_id, scratch / "shards", partition="period")
        models, hashes = judged_by(db, run_id, manifest)
        records = RunRecords(
            run_id=run_id,
            period=str(period),
            created_at=str(_one(db, "created_at", run_id)),
            spec_hash=str(_one(db, "spec_hash", run_id)),
            manifest=manifest,
            verdict_counts=[list(r) for r in kept_verdict_counts(db, run_id) or []],
            verdict_tasks=[list(r) for r in kept_task_counts(db, run_id) or []],
            judge_models=list(models),
            prompt_hashes=list(hashes),
            style=style_section(db, run_id),
            pairs=count,
            source={"files": [f.name for f in files], "sha256": _digest(files)},
            pairs_without_verdict=without_verdict,
        )
    finally:
        db.close()
    written = [p for p in (scratch / "shards").glob("period=*") if p.is_dir()]
    shard = written[0] if written else scratch / "shards" / f"period={period}"
    shard.mkdir(parents=True, exist_ok=True)  # a run without pairs still has its records
    records.write(shard)
    return shard


def _one(db: sqlite3.Connection, column: str, run_id: str) -> object:
    return db.execute(f"SELECT {column} FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0]


def _digest(files: list[Path]) -> str:
    sha = hashlib.sha256()
    for path in files:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                sha.update(chunk)
    return sha.hexdigest()

"""``--engine auto``, the report's default: DuckDB over the run's own Parquet where a run is
large, SQLite (audit.db) otherwise. The figures are the same on either engine
(``tests/integration/test_engines.py``); only the time differs.

SQLite's report is a handful of task-clustered ``GROUP BY``s, each a sort of all the run's rows:
at 1M pairs about 17 s of CPU against about 4 s for DuckDB over the Parquet a finished run
writes beside audit.db (docs/benchmarks.md). DuckDB is taken only when its answer is the run's:
the run is finished (its pairs no longer change), the Parquet is stamped for this run at
audit.db's present count of pair edits (:mod:`~judgeaudit.analysis.engines.freshness`: no
``UPDATE`` since it was written) and holds as many of the run's pairs as audit.db. Otherwise
SQLite, and the note says why.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from judgeaudit.analysis.engines import open_pairs
from judgeaudit.analysis.engines.dialect import Pairs, SqlitePairs
from judgeaudit.analysis.engines.freshness import stale_reason
from judgeaudit.analysis.engines.history import is_history
from judgeaudit.analysis.engines.paths import EngineError
from judgeaudit.audit.store.bulk import pairs_in
from judgeaudit.audit.store.parquet_out import PARQUET, writer_available
from judgeaudit.extras import install
from judgeaudit.suggest import command

#: From this many pairs in the run, ``auto`` reads the Parquet with DuckDB (below it SQLite's
#: report takes about a second and a DuckDB process start is not worth it).
AUTO_FROM = 200_000


def open_auto(db: sqlite3.Connection, out: Path, run_id: str) -> tuple[Pairs, str]:
    """The pairs relation ``auto`` picks for ``run_id``, and one line naming the engine and why
    (empty for a run below :data:`AUTO_FROM` pairs, which is always SQLite's)."""
    if is_history(out):  # a Parquet history has no audit.db: DuckDB reads it
        return open_pairs("duckdb", db, out, None), ""
    last = db.execute("SELECT MAX(rowid) FROM audit_pairs").fetchone()[0] or 0
    if last < AUTO_FROM:  # fewer rows in the whole table: no count needed
        return SqlitePairs(db), ""
    n = pairs_in(db, run_id)
    if n < AUTO_FROM:
        return SqlitePairs(db), ""
    parquet = (out if out.is_dir() else out.parent) / PARQUET
    status = db.execute("SELECT status FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    rewrite = f"`{command('export', 'parquet', out)}` writes it"
    if not writer_available():
        reason = f"DuckDB (faster from {AUTO_FROM:,} pairs) is not installed: {install('duckdb')}"
    elif not parquet.is_file():
        reason = f"no {parquet} ({rewrite})"
    elif status is None or status[0] != "finished":
        reason = "the run is not finished (its Parquet is written when it finishes)"
    elif (stale := stale_reason(db, parquet, run_id)) is not None:
        # a copy written again from an uncounted audit.db could not be shown fresh either
        writable = "a writable copy of the directory is migrated, then export parquet there"
        reason = f"{stale.why} ({writable if stale.kind == 'uncounted' else rewrite + ' again'})"
    else:
        try:
            duck = open_pairs("duckdb", db, out, None)
        except EngineError as exc:
            reason = str(exc)
        else:
            held = pairs_in(duck, run_id)
            if held == n:
                return duck, (
                    f"report: {n:,} pairs aggregated by DuckDB from {parquet} (--engine auto:"
                    f" DuckDB from {AUTO_FROM:,} pairs; --engine sqlite reads audit.db)"
                )
            duck.close()
            reason = f"{parquet} holds {held:,} of the run's {n:,} pairs ({rewrite} again)"
    return SqlitePairs(db), f"report: {n:,} pairs aggregated by SQLite from audit.db: {reason}"


def open_engine(
    engine: str, db: sqlite3.Connection, out: Path, run_id: str, parquet: str | None = None
) -> tuple[Pairs, str]:
    """The pairs relation ``engine`` names for ``run_id``, ``auto`` choosing one (``--parquet``
    given: DuckDB reads it), and auto's line (empty for a named engine)."""
    if engine != "auto":
        if engine != "sqlite" and parquet is None:
            _refuse_an_edited_copy(engine, db, out)
        return open_pairs(engine, db, out, parquet), ""
    if parquet is not None:
        return open_pairs("duckdb", db, out, parquet), ""
    return open_auto(db, out, run_id)


def _refuse_an_edited_copy(engine: str, db: sqlite3.Connection, out: Path) -> None:
    """A named engine reading the run's own copy refuses it after a hand edit of audit.db (an
    older or foreign copy is read as given); ``auto`` asks :func:`stale_reason` itself."""
    here = out if out.is_dir() else out.parent
    if is_history(out) or not (here / PARQUET).is_file():
        return
    stale = stale_reason(db, here / PARQUET, None)
    if stale is not None and stale.kind == "edited":
        raise EngineError(
            f"--engine {engine}: {stale.why}; `{command('export', 'parquet', out)}` writes it again"
            " (--engine sqlite reads audit.db)"
        )

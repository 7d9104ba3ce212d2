"""Where the report's pair aggregation runs: SQLite (audit.db), DuckDB or Spark (Parquet).

One definition serves every engine: the report's SQL text (analysis/aggregate.py, grouped.py,
split.py, gap_model.py) is written in the subset of SQL that SQLite, DuckDB and Spark SQL read
alike (explicit ``CAST(... AS INTEGER)`` where a boolean is counted, ``= 1`` where an integer is
tested), and the three things that differ are a :class:`~judgeaudit.analysis.engines.dialect.Dialect`
filled in per engine: how the gap is rounded, the row-order column, and SQLite's ``LIMIT -1``.
Each engine only has to run a statement with ``?`` parameters over a relation ``audit_pairs``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Literal

from judgeaudit.analysis.engines.dialect import SQLITE, Dialect, Pairs, SqlitePairs, as_pairs
from judgeaudit.analysis.engines.paths import EngineError, parquet_files
from judgeaudit.audit.store.parquet_out import PARQUET

Engine = Literal["sqlite", "duckdb", "spark"]
ENGINES: tuple[Engine, ...] = ("sqlite", "duckdb", "spark")


def open_pairs(engine: str, db: sqlite3.Connection, out: Path, parquet: str | None) -> Pairs:
    """The pairs relation of ``engine``: audit.db's table, or the Parquet ``parquet`` names (a
    file, a glob, or a directory of hive-partitioned shards; default ``OUT/audit_pairs.parquet``)."""
    from judgeaudit.analysis.engines.history import is_history

    history = is_history(out)
    if engine == "sqlite":
        if history:
            raise EngineError(
                f"{out}: a Parquet history (no audit.db): its pairs are read with "
                "--engine duckdb or --engine spark"
            )
        if parquet is not None:
            raise EngineError("--parquet needs --engine duckdb or --engine spark")
        return SqlitePairs(db)
    here = out if out.is_dir() else out.parent
    target = parquet if parquet is not None else str(out if history else here / PARQUET)
    # an engine that is not installed is named first: "no such file; export parquet" would
    # send the user to a command that then asks for the same install
    if engine == "duckdb":
        from judgeaudit.analysis.engines.duck import DuckPairs, require

        require()
        return DuckPairs(parquet_files(target))
    if engine == "spark":
        from judgeaudit.analysis.engines.spark import SparkPairs
        from judgeaudit.analysis.engines.spark import require as require_spark

        require_spark()
        return SparkPairs(parquet_files(target))
    raise EngineError(f"--engine {engine!r}: use one of {', '.join(ENGINES)}")


__all__ = [
    "ENGINES",
    "PARQUET",
    "SQLITE",
    "Dialect",
    "Engine",
    "EngineError",
    "Pairs",
    "SqlitePairs",
    "as_pairs",
    "open_pairs",
]

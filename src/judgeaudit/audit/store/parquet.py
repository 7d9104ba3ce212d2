"""``OUT/audit_pairs.parquet``: the pairs table for DuckDB, Spark, polars or pandas.

Written from SQLite in batches through a streaming Parquet writer, so exporting millions of
pairs holds one batch in memory. The schema is fixed (not inferred from the first batch), so a
column that is empty in the first rows still gets its real type.

pyarrow is the ``parquet`` extra (and in ``dev``), not a runtime dependency: 170 MiB installed,
and pandas loads it in every process once it is installed. A run writes the file when pyarrow
is there; otherwise it says so, and ``judgeaudit export parquet OUT`` writes it later.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from pathlib import Path

from judgeaudit.audit.store import PAIR_COLUMNS

PARQUET = "audit_pairs.parquet"
INSTALL_HINT = (
    "pip install 'judgeaudit[parquet]' (pyarrow), then `judgeaudit export parquet OUT` writes it"
)
BATCH = 10_000
TEXT = {"pair_id", "task_id", "agent_a", "agent_b", "judge_pref", "created_at", "run_id",
        "task_type", "pref_ab", "pref_ba", "gap_source", "success_source", "judge_model"}  # fmt: skip
REAL = {"judge_score_a", "judge_score_b", "reward_gap", "capability_a", "capability_b",
        "reward_a", "reward_b"}  # fmt: skip


def parquet_available() -> bool:
    """Whether pyarrow is installed (found without importing it)."""
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None


def write_pairs_parquet(db: sqlite3.Connection, run_id: str, path: Path) -> int:
    """Write the run's ``audit_pairs`` rows (seed columns first) atomically; returns the count."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def kind(column: str) -> pa.DataType:
        if column in TEXT:
            return pa.string()
        return pa.float64() if column in REAL else pa.int64()

    schema = pa.schema([pa.field(c, kind(c)) for c in PAIR_COLUMNS])
    names = ", ".join(f'"{c}"' for c in PAIR_COLUMNS)
    cursor = db.execute(
        f"SELECT {names} FROM audit_pairs WHERE run_id = ? ORDER BY rowid", (run_id,)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    count = 0
    try:
        with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
            while rows := cursor.fetchmany(BATCH):
                columns = list(zip(*rows, strict=True))
                arrays = [
                    pa.array(col, type=f.type) for col, f in zip(columns, schema, strict=True)
                ]
                writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
                count += len(rows)
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return count

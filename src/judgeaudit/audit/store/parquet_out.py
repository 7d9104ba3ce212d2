"""A run's pairs as Parquet written by DuckDB (no pyarrow): one file, or hive-partitioned shards.

The one Parquet writer: a finishing run writes ``OUT/audit_pairs.parquet`` with it (when DuckDB
is installed: the ``duckdb`` extra, also named ``parquet``; otherwise the run says so and
``judgeaudit export parquet OUT`` writes it later), and so do ``export parquet`` and the
Parquet history of recorded imports.

The columns are ``audit_pairs``'s (typed from the schema, not guessed from the first rows), plus
``seq`` (the row's SQLite rowid: the engines order tasks by it, as the SQLite report does) and,
for partitioned output, ``period`` (the run's period, else its day; or each pair's day). Rows go
from SQLite to DuckDB in batches through pandas frames built column by column with the schema's
types, so memory holds one batch; DuckDB's table spills to a temporary directory beside the
output past its memory limit, so a run of any size fits on disk. A finishing run feeds
:class:`PairsTable` the batches it writes the CSV from (the rows are read once for both).
Nothing half-written: the file (or the directory of shards) appears when it is complete, with
the mode of the run's other files (0600, :data:`judgeaudit.fsutil.PRIVATE`).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from judgeaudit.audit.store.schema import (
    EDITS_TABLE,
    LATER_COLUMNS,
    PAIR_COLUMNS,
    pair_select,
)
from judgeaudit.errors import InputError
from judgeaudit.extras import install
from judgeaudit.fsutil import replace_private

Partition = Literal["period", "day"]
#: The Parquet copy of a run's pairs in its output directory.
PARQUET = "audit_pairs.parquet"


def install_hint() -> str:
    """What to do when a run could not write the Parquet (DuckDB is not installed)."""
    return f"{install('duckdb')} (DuckDB writes it), then `judgeaudit export parquet OUT` writes it"


BATCH = 100_000
TEXT = {"pair_id", "task_id", "agent_a", "agent_b", "judge_pref", "created_at", "run_id",
        "task_type", "pref_ab", "pref_ba", "gap_source", "success_source", "judge_model",
        *(c for c, kind in LATER_COLUMNS["audit_pairs"].items() if kind == "TEXT")}  # fmt: skip
REAL = {"judge_score_a", "judge_score_b", "reward_gap", "capability_a", "capability_b",
        "reward_a", "reward_b"}  # fmt: skip


def writer_available() -> bool:
    """Whether DuckDB is installed (found without importing it)."""
    import importlib.util

    return importlib.util.find_spec("duckdb") is not None


def duck_type(column: str) -> str:
    if column in TEXT:
        return "VARCHAR"
    return "DOUBLE" if column in REAL else "BIGINT"


def run_period(db: sqlite3.Connection, run_id: str) -> str:
    """The run's period (its manifest's, set by a recorded import), else the day it was made."""
    manifest, created = db.execute(
        "SELECT manifest, created_at FROM runs WHERE run_id = ?", (run_id,)
    ).fetchone()
    period = json.loads(manifest).get("period")
    return str(period) if period else str(created or "")[:10] or "unknown"


def duckdb_connection() -> Any:
    """An in-memory DuckDB connection that prints nothing: DuckDB draws a progress bar on
    stdout for any query over two seconds, even into a pipe, which would corrupt
    ``report --format json > file`` on a large run. Raises ImportError without DuckDB."""
    import duckdb

    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = false")
    con.execute("SET enable_progress_bar_print = false")  # even if a caller turns the bar on
    return con


def write_pairs(
    db: sqlite3.Connection, run_id: str, dest: Path, partition: Partition | None = None
) -> int:
    """Write the run's pairs to ``dest``: a ``.parquet`` file, or with ``partition`` a directory
    of ``period=…/`` shards (added to: a run's shard replaces only its own file). Returns rows."""
    edits = pairs_edits(db)  # before the rows: an edit in between makes the copy look stale
    period = run_period(db, run_id) if partition == "period" else None
    day = "substr(created_at, 1, 10)"
    extra = f", {day} AS period" if partition == "day" else ", ? AS period" if period else ""
    args: tuple[Any, ...] = (period, run_id) if period else (run_id,)
    table = PairsTable(dest, partition)
    try:
        cursor = db.execute(
            f"SELECT {pair_select(db)}, rowid{extra} FROM audit_pairs WHERE run_id = ?"
            " ORDER BY rowid",
            args,
        )
        while rows := cursor.fetchmany(BATCH):
            table.add(rows)
        table.write(run_id, edits)
    finally:
        table.close()
    return table.count


class PairsTable:
    """DuckDB's table of one run's pairs, filled batch by batch, then written to ``dest``.

    A batch is rows of :data:`PAIR_COLUMNS`, the row's rowid (``seq``) and, with
    ``partition``, its period, in any order: the file is written ordered by ``seq``. In memory,
    spilling to a work directory beside ``dest`` past DuckDB's memory limit: a small run costs
    no database file, a large one fits. Raises InputError without DuckDB."""

    def __init__(self, dest: Path, partition: Partition | None = None) -> None:
        try:
            self.con = duckdb_connection()
        except ImportError:
            raise InputError(
                f"export parquet: DuckDB writes the Parquet; {install('duckdb')}"
            ) from None
        self.dest, self.partition, self.count = dest, partition, 0
        self.columns = [*PAIR_COLUMNS, "seq", *(["period"] if partition else [])]
        self.kinds = {c: duck_type(c) for c in PAIR_COLUMNS} | {"seq": "BIGINT"}
        self.kinds |= {"period": "VARCHAR"} if partition else {}
        target = dest if partition else dest.parent
        target.mkdir(parents=True, exist_ok=True)
        self.work = Path(tempfile.mkdtemp(dir=target, prefix=".export-"))
        try:
            self.con.execute(f"SET temp_directory = '{_quote(self.work)}'")
            typed = ", ".join(f'"{c}" {self.kinds[c]}' for c in self.columns)
            self.con.execute(f"CREATE TABLE pairs ({typed})")
        except BaseException:
            self.close()
            raise

    def add(self, rows: Sequence[Sequence[Any]]) -> None:
        """Append ``rows`` (column-wise into typed arrays: no per-value type guess)."""
        if not rows:
            return
        import pandas as pd

        columns = zip(self.columns, zip(*rows, strict=True), strict=True)
        frame = pd.DataFrame({c: _typed(c, self.kinds[c], v) for c, v in columns}, copy=False)
        self.con.register("batch", frame)
        try:
            self.con.execute("INSERT INTO pairs SELECT * FROM batch")
        finally:
            self.con.unregister("batch")
        self.count += len(rows)

    def write(self, run_id: str, edits: int | None) -> None:
        """The file (stamped with the run and ``edits``), or this run's shards, at ``dest``."""
        if self.partition:
            self.con.execute(
                f"COPY (SELECT * FROM pairs ORDER BY seq) TO '{_quote(self.work / 'out')}'"
                f" (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (period),"
                f" FILENAME_PATTERN '{_quote(_safe(run_id))}_{{i}}')"
            )
            self.con.close()
            _move_shards(self.work / "out", self.dest, _safe(run_id))
        else:
            tmp = self.work / "out.parquet"
            self.con.execute(
                f"COPY (SELECT * FROM pairs ORDER BY seq) TO '{_quote(tmp)}'"
                f" (FORMAT parquet, COMPRESSION zstd, KV_METADATA {_stamp(run_id, edits)})"
            )
            self.con.close()
            replace_private(tmp, self.dest)  # 0600, as the run's other files

    def close(self) -> None:
        """Drop the table and the work directory (whether or not it was written)."""
        with contextlib.suppress(Exception):
            self.con.close()
        shutil.rmtree(self.work, ignore_errors=True)


#: The Python types SQLite gives for each kind of column (the readers' value check refuses
#: others first; a value of another type here is refused, never converted).
_ACCEPTED: dict[str, set[type]] = {
    "VARCHAR": {str, type(None)},
    "DOUBLE": {float, int, type(None)},
    "BIGINT": {int, type(None)},
}


def _typed(column: str, kind: str, values: Sequence[Any]) -> Any:
    """One column of a batch as the array DuckDB reads as ``kind``, None as NULL. SQLite
    stores no NaN (it stores NULL), so NaN marks exactly the NULLs of a numeric column; an
    integer column whose values a double would not hold exactly is converted value by value."""
    import numpy as np
    import pandas as pd

    found = set(map(type, values)) - _ACCEPTED[kind]
    if found:
        names = ", ".join(sorted(t.__name__ for t in found))
        raise InputError(f"audit_pairs.{column}: {names} values where {kind} goes")
    if kind == "VARCHAR":  # object, not pandas 3's inferred `str` (pyarrow-backed if present)
        return pd.Series(np.array(values, dtype=object), dtype=object, copy=False)
    data = np.array(values, dtype=float)
    missing = np.isnan(data)
    if kind == "DOUBLE":
        return pd.arrays.FloatingArray(data, missing)
    if np.any(np.abs(data[~missing]) >= 2.0**53):
        whole = np.fromiter((0 if v is None else v for v in values), np.int64, len(values))
    else:
        whole = np.where(missing, 0.0, data).astype(np.int64)
    return pd.arrays.IntegerArray(whole, missing)


#: The Parquet's key-value metadata that ties it to audit.db: the run, and the count of
#: ``audit_pairs`` edits (schema.EDITS_TABLE) when it was written.
STAMP_RUN, STAMP_EDITS = "judgeaudit_run_id", "judgeaudit_pairs_edits"


def pairs_edits(db: sqlite3.Connection) -> int | None:
    """audit.db's count of changed or deleted pairs (None for a file without the count)."""
    try:
        row = db.execute(f"SELECT edits FROM {EDITS_TABLE}").fetchone()
    except sqlite3.OperationalError:  # a read-only file of schema 3: no table, no triggers
        return None
    return None if row is None else int(row[0])


def _stamp(run_id: str, edits: int | None) -> str:
    fields = {STAMP_RUN: run_id} | ({} if edits is None else {STAMP_EDITS: str(edits)})
    return "{" + ", ".join(f"{k}: '{_quote(v)}'" for k, v in fields.items()) + "}"


def stamp(con: Any, path: Path) -> dict[str, str]:
    """The judgeaudit metadata of the Parquet at ``path`` (read by DuckDB connection ``con``;
    empty for a file another tool wrote or rewrote)."""
    rows = con.execute(
        "SELECT decode(key), decode(value) FROM parquet_kv_metadata(?)", [str(path)]
    ).fetchall()
    return {str(k): str(v) for k, v in rows if str(k) in (STAMP_RUN, STAMP_EDITS)}


def _quote(path: Path | str) -> str:
    return str(path).replace("'", "''")


def _safe(run_id: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in run_id)


def _move_shards(built: Path, dest: Path, run: str) -> None:
    """Each ``period=…/`` shard into ``dest``, replacing this run's earlier shard there."""
    if not built.exists():  # a run without pairs writes no shard
        return
    for part in sorted(p for p in built.iterdir() if p.is_dir()):
        into = dest / part.name
        into.mkdir(exist_ok=True)
        for old in into.glob(f"{run}_*.parquet"):
            with contextlib.suppress(FileNotFoundError):
                old.unlink()
        for shard in sorted(part.glob("*.parquet")):
            replace_private(shard, into / shard.name)

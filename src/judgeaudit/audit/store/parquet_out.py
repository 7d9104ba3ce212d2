"""A run's pairs as Parquet written by DuckDB (no pyarrow): one file, or hive-partitioned shards.

The one Parquet writer: a finishing run writes ``OUT/audit_pairs.parquet`` with it (when DuckDB
is installed: the ``duckdb`` extra, also named ``parquet``; otherwise the run says so and
``judgeaudit export parquet OUT`` writes it later), and so do ``export parquet`` and the
Parquet history of recorded imports.

The columns are ``audit_pairs``'s (typed from the schema, not guessed from the first rows), plus
``seq`` (the row's SQLite rowid: the engines order tasks by it, as the SQLite report does) and,
for partitioned output, ``period`` (the run's period, else its day; or each pair's day). Rows go
from SQLite to DuckDB in batches through pandas frames, so memory holds one batch; DuckDB's
table spills to a temporary directory beside the output past its memory limit, so a run of any
size fits on disk.
Nothing half-written: the file (or the directory of shards) appears when it is complete, with
the mode of the run's other files (0600, :data:`judgeaudit.fsutil.PRIVATE`).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import tempfile
import threading
from pathlib import Path
from typing import Any, Literal

from judgeaudit.audit.store.schema import EDITS_TABLE, PAIR_COLUMNS
from judgeaudit.errors import InputError
from judgeaudit.fsutil import replace_private

Partition = Literal["period", "day"]
#: The Parquet copy of a run's pairs in its output directory.
PARQUET = "audit_pairs.parquet"
INSTALL = "pip install 'judgeaudit[duckdb]'"
INSTALL_HINT = f"{INSTALL} (DuckDB writes it), then `judgeaudit export parquet OUT` writes it"
BATCH = 100_000
TEXT = {"pair_id", "task_id", "agent_a", "agent_b", "judge_pref", "created_at", "run_id",
        "task_type", "pref_ab", "pref_ba", "gap_source", "success_source", "judge_model"}  # fmt: skip
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


def _pandas_type(column: str) -> str:
    return {"VARCHAR": "object", "DOUBLE": "Float64", "BIGINT": "Int64"}[duck_type(column)]


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
    try:
        con = duckdb_connection()
    except ImportError:
        raise InputError(f"export parquet: DuckDB writes the Parquet; {INSTALL}") from None
    import pandas as pd

    names = ", ".join(f'"{c}"' for c in PAIR_COLUMNS)
    edits = pairs_edits(db)  # before the rows: an edit in between makes the copy look stale
    period = run_period(db, run_id) if partition == "period" else None
    day = "substr(created_at, 1, 10)"
    extra = f", {day} AS period" if partition == "day" else ", ? AS period" if period else ""
    args: tuple[Any, ...] = (period, run_id) if period else (run_id,)
    columns = [*PAIR_COLUMNS, "seq", *(["period"] if partition else [])]
    dtypes = {c: _pandas_type(c) for c in PAIR_COLUMNS} | {"seq": "Int64", "period": "object"}
    target = dest if partition else dest.parent
    target.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=target, prefix=".export-"))
    count = 0
    try:
        # In memory, spilling to the work directory past DuckDB's memory limit: a small run
        # costs no database file (a finishing run writes one each time), a large one fits.
        con.execute(f"SET temp_directory = '{_quote(work)}'")
        typed = [f'"{c}" {duck_type(c)}' for c in PAIR_COLUMNS]
        typed += ["seq BIGINT", *(["period VARCHAR"] if partition else [])]
        con.execute(f"CREATE TABLE pairs ({', '.join(typed)})")
        cursor = db.execute(
            f"SELECT {names}, rowid{extra} FROM audit_pairs WHERE run_id = ? ORDER BY rowid", args
        )
        while rows := cursor.fetchmany(BATCH):
            frame = pd.DataFrame.from_records([tuple(r) for r in rows], columns=columns)
            frame = frame.astype({c: dtypes[c] for c in columns})
            con.register("batch", frame)
            con.execute("INSERT INTO pairs SELECT * FROM batch")
            con.unregister("batch")
            count += len(rows)
        if partition:
            con.execute(
                f"COPY (SELECT * FROM pairs ORDER BY seq) TO '{_quote(work / 'out')}'"
                f" (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (period),"
                f" FILENAME_PATTERN '{_quote(_safe(run_id))}_{{i}}')"
            )
            con.close()
            _move_shards(work / "out", dest, _safe(run_id))
        else:
            tmp = work / "out.parquet"
            con.execute(
                f"COPY (SELECT * FROM pairs ORDER BY seq) TO '{_quote(tmp)}'"
                f" (FORMAT parquet, COMPRESSION zstd, KV_METADATA {_stamp(run_id, edits)})"
            )
            con.close()
            replace_private(tmp, dest)  # 0600, as the run's other files
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return count


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


class ParquetCopy:
    """:func:`write_pairs` of a finishing run in a thread, over its own read-only connection to
    ``audit.db`` (the caller flushed what it stored), so the caller writes its other files
    meanwhile: DuckDB and SQLite run without the GIL for most of it, on a core the run's
    calls no longer use. :meth:`wait` joins it and raises what it raised."""

    def __init__(self, db_path: Path, run_id: str, dest: Path) -> None:
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._write, args=(db_path, run_id, dest), name="judgeaudit-parquet"
        )
        self._thread.start()

    def _write(self, db_path: Path, run_id: str, dest: Path) -> None:
        try:
            db = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True)
            try:
                write_pairs(db, run_id, dest)
            finally:
                db.close()
        except BaseException as exc:  # raised again in the caller's thread by wait()
            self._error = exc

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error


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

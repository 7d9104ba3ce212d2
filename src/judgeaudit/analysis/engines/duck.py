"""The pairs table as DuckDB reads it from Parquet: one file, a glob, or hive-partitioned shards."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judgeaudit.analysis.engines.dialect import DUCKDB, ListRows, Rows
from judgeaudit.analysis.engines.paths import EngineError, ParquetInput, check_schema
from judgeaudit.analysis.engines.values import check_values
from judgeaudit.audit.store.parquet_out import duckdb_connection
from judgeaudit.extras import install


def require() -> Any:
    """The duckdb module, or the one line naming the extra to install."""
    try:
        import duckdb
    except ImportError:
        raise EngineError(
            f"--engine duckdb: DuckDB is not installed; {install('duckdb')}"
        ) from None
    return duckdb


def connect() -> Any:
    require()
    return duckdb_connection()


def read_sql(parquet: ParquetInput, by_name: bool = False) -> str:
    """``read_parquet`` over the files (their list is inlined: DuckDB binds no list to a view);
    ``by_name`` for shards whose columns differ (a later column, absent from older shards, is
    read as NULL there)."""
    files = ", ".join("'" + f.replace("'", "''") + "'" for f in parquet.files)
    hive = "true" if parquet.root is not None else "false"
    union = ", union_by_name = true" if by_name else ""
    return f"read_parquet([{files}], hive_partitioning = {hive}{union})"


def uneven(columns: dict[str, dict[str, str]]) -> bool:
    """Whether the shards' column sets differ (only by later columns, once checked)."""
    return len({frozenset(cols) for cols in columns.values()}) > 1


def shard_columns(con: Any, parquet: ParquetInput) -> dict[str, dict[str, str]]:
    """Each file's columns and their Parquet types (hive partition columns come from paths)."""
    files = ", ".join("'" + f.replace("'", "''") + "'" for f in parquet.files)
    out: dict[str, dict[str, str]] = {f: {} for f in parquet.files}
    for file, name, kind in con.execute(
        f"SELECT file_name, name, type FROM parquet_schema([{files}])"
        " WHERE num_children IS NULL OR num_children = 0"
    ).fetchall():
        out[file][name] = str(kind)
    return out


def checked_view(parquet: ParquetInput) -> Any:
    """A DuckDB connection with the view ``audit_pairs`` over the Parquet (``seq`` is the file
    order where it is absent), once every shard has the pairs' schema and every pair holds what
    audit.db's columns may hold (:func:`~judgeaudit.analysis.engines.values.check_values`);
    else the one line naming the file."""
    return checked(parquet)[0]


def checked(parquet: ParquetInput) -> tuple[Any, bool]:
    """:func:`checked_view`, and whether the shards' columns differ (by a later column, read
    as NULL where absent): Spark has its files checked here too, before it reads them."""
    con = connect()
    try:
        try:
            columns = shard_columns(con, parquet)
        except Exception as exc:  # duckdb.Error: a file that is not Parquet
            raise EngineError(f"--parquet: {str(exc).splitlines()[0]}") from None
        check_schema(columns)
        by_name = uneven(columns)
        source = read_sql(parquet, by_name=by_name)
        has_seq = "seq" in next(iter(columns.values()))
        seq = "" if has_seq else ", row_number() OVER () AS seq"
        con.execute(f"CREATE VIEW audit_pairs AS SELECT *{seq} FROM {source}")
        check_values(con, parquet.root or parquet.files[0])
    except BaseException:
        con.close()
        raise
    return con, by_name


class DuckPairs:
    """The checked view ``audit_pairs`` over the Parquet (:func:`checked_view`)."""

    dialect = DUCKDB

    def __init__(self, parquet: ParquetInput) -> None:
        self.con = checked_view(parquet)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        return ListRows(self.con.execute(sql, list(params)).fetchall())

    def close(self) -> None:
        self.con.close()

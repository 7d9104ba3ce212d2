"""The pairs table as Spark reads it from Parquet, in local mode (or the cluster
``SPARK_REMOTE``/``spark-submit`` configure): the report's SQL text runs unchanged."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from judgeaudit.analysis.engines.dialect import SPARK, ListRows, Rows
from judgeaudit.analysis.engines.duck import checked
from judgeaudit.analysis.engines.paths import EngineError, ParquetInput
from judgeaudit.audit.store.parquet_out import writer_available
from judgeaudit.extras import install


def _install() -> str:
    return f"{install('spark')} (PySpark and DuckDB; needs Java 17 or newer)"


def require() -> Any:
    """PySpark's ``SparkSession``, or the one line naming the extra to install. DuckDB comes
    with the extra: it checks the Parquet before Spark reads it (:class:`SparkPairs`)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise EngineError(f"--engine spark: PySpark is not installed; {_install()}") from None
    if not writer_available():
        raise EngineError(
            "--engine spark: DuckDB, which checks the Parquet before Spark reads it, is not"
            f" installed; {_install()}"
        )
    return SparkSession


def session() -> Any:
    """A local session (``JUDGEAUDIT_SPARK_MASTER`` overrides ``local[2]``), no UI, SQL's
    non-ANSI semantics as SQLite has them."""
    builder = require().builder
    master = os.environ.get("JUDGEAUDIT_SPARK_MASTER", "local[2]")
    return (
        builder.master(master)
        .appName("judgeaudit")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.ansi.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )


class SparkPairs:
    """A temporary view ``audit_pairs`` over the Parquet (hive partitions from the directory),
    read once DuckDB found the files hold pairs as audit.db's columns may (the schema, the
    flags' and preferences' domains, ``misselected`` agreeing with its pair: one owner of the
    rules, :func:`judgeaudit.analysis.engines.duck.checked_view`), so an edited copy is refused
    in one line, as on DuckDB, before a JVM starts, where it crashed the report or was counted."""

    dialect = SPARK

    def __init__(self, parquet: ParquetInput) -> None:
        con, merge = checked(parquet)  # the files' checks, and whether their columns differ
        con.close()
        self.spark = session()
        reader = self.spark.read
        if merge:  # older shards lack a later column: read it as NULL there
            reader = reader.option("mergeSchema", "true")
        if parquet.root is not None:
            reader = reader.option("basePath", parquet.root)
        frame = reader.parquet(*parquet.files)
        if "seq" not in frame.columns:
            from pyspark.sql import functions

            frame = frame.withColumn("seq", functions.monotonically_increasing_id())
        # The report scans the table ~15 times: read the Parquet once (spills to disk if large).
        frame.cache().createOrReplaceTempView("audit_pairs")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        rows = self.spark.sql(sql, args=list(params)).collect()
        return ListRows([tuple(row) for row in rows])

    def close(self) -> None:
        """The session is kept for the process (starting one takes seconds); the view goes."""
        self.spark.catalog.dropTempView("audit_pairs")
        self.spark.catalog.clearCache()

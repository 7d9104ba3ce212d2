"""The pairs table as Spark reads it from Parquet, in local mode (or the cluster
``SPARK_REMOTE``/``spark-submit`` configure): the report's SQL text runs unchanged."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from judgeaudit.analysis.engines.dialect import SPARK, ListRows, Rows
from judgeaudit.analysis.engines.paths import EngineError, ParquetInput, check_schema

INSTALL = "pip install 'judgeaudit[spark]' (PySpark; needs Java 17 or newer)"


def require() -> Any:
    """PySpark's ``SparkSession``, or the one line naming the extra to install."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise EngineError(f"--engine spark: PySpark is not installed; {INSTALL}") from None
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


def shard_columns(spark: Any, parquet: ParquetInput) -> dict[str, dict[str, str]]:
    """Each file's schema: DuckDB's footer read when it is installed, else Spark's per file."""
    try:
        from judgeaudit.analysis.engines.duck import connect
        from judgeaudit.analysis.engines.duck import shard_columns as duck_columns

        con = connect()
        try:
            return duck_columns(con, parquet)
        finally:
            con.close()
    except EngineError:
        pass
    return {
        f: {field.name: field.dataType.simpleString() for field in spark.read.parquet(f).schema}
        for f in parquet.files
    }


class SparkPairs:
    """A temporary view ``audit_pairs`` over the Parquet (hive partitions from the directory)."""

    dialect = SPARK

    def __init__(self, parquet: ParquetInput) -> None:
        self.spark = session()
        check_schema(shard_columns(self.spark, parquet))
        reader = self.spark.read
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

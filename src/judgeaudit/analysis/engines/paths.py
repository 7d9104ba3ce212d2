"""`--parquet PATH|GLOB|DIR` resolved to files, and the schema every shard must share."""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

from judgeaudit.audit.store import COPY_PAIR_COLUMNS
from judgeaudit.audit.store.schema import LATER_PAIR_COLUMNS
from judgeaudit.errors import InputError


class EngineError(InputError):
    """Parquet an engine cannot read as the pairs table (exit 2); the message names the file."""


#: Columns every shard must hold (the pairs table's); ``seq`` orders rows (optional: without it
#: the engines keep the files' own order), ``period`` is a partition column of daily shards.
#: Columns added to the pairs later may be absent from older shards (read as NULL), so a
#: history mixing shards from before and after them is read as one.
REQUIRED = COPY_PAIR_COLUMNS
OPTIONAL = ("seq", "period")


@dataclass(frozen=True)
class ParquetInput:
    files: list[str]
    #: the directory given, read with its hive partitions (``period=2026-12-01/...``)
    root: str | None


def parquet_files(target: str) -> ParquetInput:
    """A file, a directory (every ``*.parquet`` below it outside hidden directories, hive
    partitions read), or a glob."""
    path = Path(target)
    if path.is_dir():  # hidden directories are an import's or export's scratch, not shards
        files = sorted(
            str(p)
            for p in path.rglob("*.parquet")
            if p.is_file() and not any(d.startswith(".") for d in p.relative_to(path).parts)
        )
        if not files:
            raise EngineError(f"--parquet {target}: the directory holds no *.parquet file")
        return ParquetInput(files, str(path))
    if path.is_file():
        return ParquetInput([str(path)], None)
    if glob.has_magic(target):
        files = sorted(f for f in glob.glob(target, recursive=True) if Path(f).is_file())
        if not files:
            raise EngineError(f"--parquet {target}: no file matches this glob")
        return ParquetInput(files, None)
    raise EngineError(
        f"--parquet {target}: no such file; write it with `judgeaudit export parquet OUT`"
    )


def check_schema(columns: dict[str, dict[str, str]]) -> None:
    """Every shard has the pairs columns, each with the type of the first shard's (one line
    naming the first shard that differs)."""
    first_file, first = next(iter(columns.items()))
    for file, cols in columns.items():
        missing = [c for c in REQUIRED if c not in cols]
        if missing:
            raise EngineError(
                f"{file}: not a pairs shard: no column {', '.join(missing[:3])}"
                f"{' …' if len(missing) > 3 else ''}; write shards with `judgeaudit export parquet`"
            )
        for name, kind in cols.items():
            if name in first and first[name] != kind:
                raise EngineError(
                    f"{file}: column {name} is {kind} where {first_file} has {first[name]}; "
                    "shards read together need one schema (re-export the odd one)"
                )
        extra = sorted((set(cols) ^ set(first)) - set(LATER_PAIR_COLUMNS))
        if extra:
            raise EngineError(
                f"{file}: columns differ from {first_file} ({', '.join(extra[:3])}); "
                "shards read together need one schema (re-export the odd one)"
            )

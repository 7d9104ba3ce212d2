"""A Parquet of pairs edited by another tool is refused in one line naming the file, the column
and the pair (analysis/engines/values.py), where it crashed the report (exit 70) or was counted:
the column check's value rules, run by DuckDB on the file before DuckDB or Spark (local mode, as
in test_engines.py) reads it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from judgeaudit.cli import main
from tests.report_fixture import build_audit_db

EDITS = {
    "misselected-turned-round": (
        "* REPLACE (1 - misselected AS misselected)",
        "audit_pairs.misselected of pair",
        "where what success_a, success_b and judge_pref say",
    ),
    "pref-outside-its-literal": (
        "* REPLACE (CASE WHEN seq = (SELECT MIN(seq) FROM read_parquet('{source}'))"
        " THEN 'C' ELSE judge_pref END AS judge_pref)",
        "audit_pairs.judge_pref of pair",
        '"C" where A, B or tie is expected',
    ),
    "text-in-a-flag": (
        "* REPLACE (CAST(success_a AS VARCHAR) AS success_a)",
        "column success_a is VARCHAR where an integer is expected",
        "export parquet",
    ),
}


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    done = build_audit_db(tmp_path_factory.mktemp("values") / "out", indexed=True)
    assert main(["export", "parquet", str(done), "--run", "r-main"]) == 0
    return done


@pytest.mark.timeout(600)  # Spark starts a JVM when it reads the file (it did before the check)
@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize("edit", EDITS, ids=list(EDITS))
def test_an_edited_parquet_is_one_line_not_a_crash(
    out: Path, tmp_path: Path, edit: str, engine: str
) -> None:
    select, where, what = EDITS[edit]
    edited = tmp_path / "edited.parquet"
    source = out / "audit_pairs.parquet"
    duckdb.sql(
        f"COPY (SELECT {select.format(source=source)} FROM read_parquet('{source}') ORDER BY seq)"
        f" TO '{edited}' (FORMAT parquet)"
    )
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "report", str(out), "--run", "r-main",
         "--engine", engine, "--parquet", str(edited), "--format", "json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"judgeaudit: {edited}: "), lines[0]
    assert where in lines[0] and what in lines[0], lines[0]
    assert done.stdout == ""


def test_the_runs_own_copy_passes(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["report", str(out), "--run", "r-main", "--format", "json"]
    assert main([*args, "--engine", "duckdb"]) == 0
    on_duckdb = capsys.readouterr().out
    assert main([*args, "--engine", "sqlite"]) == 0
    assert capsys.readouterr().out == on_duckdb

"""DuckDB is the one Parquet writer: a finishing run writes ``OUT/audit_pairs.parquet`` without
pyarrow, with the rows audit.db holds; without DuckDB the run says the file was not written and
how to get it."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import duckdb
import pytest

from judgeaudit.cli import main
from judgeaudit.extras import install
from tests.integration.test_preferences_input import _audit


def test_a_run_writes_the_parquet_with_duckdb_and_no_pyarrow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as hidden:
        hidden.setitem(sys.modules, "pyarrow", None)  # import pyarrow now fails, as uninstalled
        out = _audit(tmp_path)
        assert (out / "audit_pairs.parquet").is_file()
    con = duckdb.connect()
    path = str(out / "audit_pairs.parquet").replace("'", "''")
    ids = [r[0] for r in con.execute(f"SELECT pair_id FROM '{path}' ORDER BY seq").fetchall()]
    kinds = dict(con.execute(f"SELECT name, type FROM parquet_schema('{path}')").fetchall())
    db = sqlite3.connect(out / "audit.db")
    stored = [r[0] for r in db.execute("SELECT pair_id FROM audit_pairs ORDER BY rowid")]
    db.close()
    assert len(ids) == len(stored) > 0
    assert ids == stored  # seq is the order the run stored them
    assert kinds["reward_gap"] == "DOUBLE" and kinds["seq"] == "INT64"


#: The install line for this environment (what it says is tests/unit/test_extras.py's).
HINT = install("duckdb")


def test_a_run_without_duckdb_says_so_and_export_and_report_refuse_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def no_duckdb(name: str, *args: object, **kwargs: object) -> object:
        return None if name == "duckdb" else real(name, *args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as hidden:
        hidden.setitem(sys.modules, "duckdb", None)
        hidden.setattr(importlib.util, "find_spec", no_duckdb)
        out = _audit(tmp_path)
        err = capsys.readouterr().err
        assert not (out / "audit_pairs.parquet").exists()
        assert f"{out / 'audit_pairs.parquet'}: not written" in err
        assert HINT in err
        assert main(["export", "parquet", str(out)]) == 2
        assert HINT in capsys.readouterr().err
        assert not (out / "audit_pairs.parquet").exists()
        # the report names the missing engine first, not the missing Parquet (whose fix,
        # `export parquet`, would only ask for the same install)
        assert main(["report", str(out), "--engine", "duckdb"]) == 2
        err = capsys.readouterr().err
        assert f"DuckDB is not installed; {HINT}" in err
        assert "export parquet" not in err and len(err.strip().splitlines()) == 1
        # Spark has DuckDB check its Parquet first: without it, the same kind of line
        assert main(["report", str(out), "--engine", "spark"]) == 2
        err = capsys.readouterr().err
        assert "--engine spark: DuckDB, which checks the Parquet before Spark reads it" in err
        assert install("spark") in err and len(err.strip().splitlines()) == 1

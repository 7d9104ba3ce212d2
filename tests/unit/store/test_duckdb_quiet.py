"""DuckDB draws a progress bar on stdout for any query over two seconds, even into a pipe: the
engines' connection must not, or ``report --engine duckdb --format json > file`` is corrupted
on a large run (seen at 5M pairs: the JSON line began with the bar)."""

from __future__ import annotations

from typing import Any

import pytest

from judgeaudit.audit.store.parquet_out import duckdb_connection

duckdb = pytest.importorskip("duckdb")


def _stdout_of_a_query(con: Any, capfd: pytest.CaptureFixture[str]) -> str:
    con.execute("SET progress_bar_time = 0")  # the bar at once, not after two seconds
    con.execute("SELECT SUM(hash(i) % 7) FROM range(3000000) t(i)").fetchall()
    return capfd.readouterr().out


def test_a_plain_duckdb_connection_draws_a_bar_on_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    """The hazard is real (else the next test would prove nothing)."""
    assert "%" in _stdout_of_a_query(duckdb.connect(":memory:"), capfd)


def test_the_engines_connection_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    assert _stdout_of_a_query(duckdb_connection(), capfd) == ""

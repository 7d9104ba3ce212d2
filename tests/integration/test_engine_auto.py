"""``report --engine auto`` (the default): DuckDB over the run's own Parquet on a large finished
run, SQLite otherwise, with the same report either way and one stderr line naming the engine.

The threshold is lowered to the fixture's size (monkeypatched in process) so the choice is
exercised on a small seeded run; the figures are compared with ``--engine sqlite``'s output.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from judgeaudit.analysis.engines import auto, open_pairs
from judgeaudit.cli import main
from tests.report_fixture import build_audit_db


@pytest.fixture(scope="module")
def fixture_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = build_audit_db(tmp_path_factory.mktemp("auto"), indexed=True)
    assert main(["export", "parquet", str(out), "--run", "r-main"]) == 0
    return out


def _report(out: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, str]:
    capsys.readouterr()
    assert main(["report", str(out), "--run", "r-main", "--format", "json", *args]) == 0
    done = capsys.readouterr()
    return done.out, done.err


def test_a_large_finished_run_is_read_by_duckdb_with_the_same_report(
    fixture_out: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sqlite_json, sqlite_err = _report(fixture_out, capsys, "--engine", "sqlite")
    assert sqlite_err == ""
    monkeypatch.setattr(auto, "AUTO_FROM", 4000)  # r-main holds 4,000 pairs
    opened: list[str] = []
    real = open_pairs

    def spy(engine: str, *args: object) -> object:
        opened.append(engine)
        return real(engine, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(auto, "open_pairs", spy)
    got_json, err = _report(fixture_out, capsys)
    assert opened == ["duckdb"]
    assert got_json == sqlite_json
    parquet = fixture_out / "audit_pairs.parquet"
    assert err.strip() == (
        f"report: 4,000 pairs aggregated by DuckDB from {parquet} (--engine auto: DuckDB from"
        " 4,000 pairs; --engine sqlite reads audit.db)"
    )


def test_a_run_below_the_threshold_is_read_by_sqlite_and_says_nothing(
    fixture_out: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(auto, "AUTO_FROM", 4001)
    monkeypatch.setattr(auto, "open_pairs", None)  # DuckDB must not even be opened
    got_json, err = _report(fixture_out, capsys)
    assert err == "" and '"run_id": "r-main"' in got_json


@pytest.mark.parametrize("why", ["no-parquet", "stale", "unfinished"])
def test_sqlite_is_the_fallback_and_the_line_says_why(
    fixture_out: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    why: str,
) -> None:
    out = tmp_path / "out"
    shutil.copytree(fixture_out, out)
    expected_json, _ = _report(out, capsys, "--engine", "sqlite")
    if why == "no-parquet":
        (out / "audit_pairs.parquet").unlink()
        reason = f"no {out / 'audit_pairs.parquet'} (`judgeaudit export parquet {out}` writes it)"
    elif why == "stale":  # the Parquet of another run (its stamp says so): none of r-main's
        assert main(["export", "parquet", str(out), "--run", "r-other"]) == 0
        reason = f"{out / 'audit_pairs.parquet'} holds run 'r-other', not 'r-main'"
    else:
        db = sqlite3.connect(out / "audit.db")
        with db:
            db.execute("UPDATE runs SET status = 'running' WHERE run_id = 'r-main'")
        db.close()
        # killed (nobody holds OUT): shown "stopped", the app's word
        expected_json = expected_json.replace('"status": "finished"', '"status": "stopped"', 1)
        reason = "the run is not finished"
    monkeypatch.setattr(auto, "AUTO_FROM", 4000)
    got_json, err = _report(out, capsys)
    assert got_json == expected_json
    assert err.startswith("report: 4,000 pairs aggregated by SQLite from audit.db: ")
    first, *rest = err.strip().splitlines()
    assert reason in first
    if why == "unfinished":  # marked running by hand, no process holds OUT: said on a 2nd line
        assert rest == [
            f"report: run r-main is marked running, but no process is writing {out}: it was"
            " stopped without closing (killed, or a crash); rerun the same `judgeaudit run`"
            " command to resume it"
        ]
    else:
        assert rest == []

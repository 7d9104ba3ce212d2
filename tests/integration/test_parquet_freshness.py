"""A run's Parquet copy answers for the run only while audit.db's pairs are as they were when it
was written (analysis/engines/freshness.py): a hand ``UPDATE`` of audit.db afterwards sends
``--engine auto`` back to audit.db, with a note saying why, and ``--engine duckdb`` refuses the
copy in one line; ``export parquet`` writes a copy that answers again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import duckdb
import pytest

from judgeaudit.analysis.engines import auto
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.store.bulk import fill_capability
from judgeaudit.cli import main
from tests.report_fixture import build_audit_db

#: 40 decisive pairs the judge got right, turned round (misselected follows: the file passes
#: the column check; only its figures change).
TURN_ROUND = (
    "UPDATE audit_pairs SET misselected = 1,"
    " judge_pref = CASE judge_pref WHEN 'A' THEN 'B' ELSE 'A' END WHERE rowid IN"
    " (SELECT rowid FROM audit_pairs WHERE run_id = 'r-main' AND misselected = 0"
    " AND success_a <> success_b AND judge_pref IN ('A', 'B') LIMIT 40)"
)


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(auto, "AUTO_FROM", 4000)  # r-main's 4,000 pairs go to DuckDB
    done = build_audit_db(tmp_path / "out", indexed=True)
    assert main(["export", "parquet", str(done), "--run", "r-main"]) == 0
    return done


def report(
    out: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, dict[str, object], str]:
    capsys.readouterr()
    code = main(["report", str(out), "--run", "r-main", "--format", "json", *args])
    done = capsys.readouterr()
    return code, json.loads(done.out) if code == 0 else {}, done.err


def edit(out: Path, sql: str) -> None:
    db = sqlite3.connect(out / "audit.db")
    with db:
        db.execute(sql)
    db.close()


def test_a_hand_edit_after_the_copy_sends_auto_back_to_audit_db(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, before, err = report(out, capsys)
    assert code == 0 and err.startswith("report: 4,000 pairs aggregated by DuckDB")
    edit(out, TURN_ROUND)
    code, after, err = report(out, capsys)
    assert code == 0
    assert "aggregated by SQLite from audit.db: audit.db's pairs were changed after" in err
    assert f"`judgeaudit export parquet {out}` writes it again" in err
    assert after["misselected"] != before["misselected"]
    assert after == report(out, capsys, "--engine", "sqlite")[1]
    # the copy refused by name where DuckDB is asked for, in one line
    code, _, err = report(out, capsys, "--engine", "duckdb")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1
    assert "audit.db's pairs were changed after" in lines[0] and "--engine sqlite" in lines[0]
    # written again, the copy answers for the run again, with the edited figures
    assert main(["export", "parquet", str(out), "--run", "r-main"]) == 0
    code, again, err = report(out, capsys)
    assert code == 0 and "aggregated by DuckDB" in err and again == after


def test_a_deleted_pair_is_an_edit_too(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a pair deleted and a copy of another inserted in its place: the same count of pairs
    db = sqlite3.connect(out / "audit.db")
    db.executescript(
        "BEGIN; CREATE TEMP TABLE copy AS SELECT * FROM audit_pairs"
        " WHERE run_id = 'r-main' ORDER BY rowid DESC LIMIT 1;"
        " UPDATE copy SET pair_id = 'r-main/copy';"
        " DELETE FROM audit_pairs WHERE rowid = (SELECT MIN(rowid) FROM audit_pairs"
        " WHERE run_id = 'r-main');"
        " INSERT INTO audit_pairs SELECT * FROM copy; COMMIT;"
    )
    db.close()
    code, _, err = report(out, capsys)
    assert code == 0 and "audit.db's pairs were changed after" in err


def test_a_copy_another_tool_rewrote_is_not_read_by_auto(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parquet, edited = out / "audit_pairs.parquet", out / "edited.parquet"
    duckdb.sql(
        f"COPY (SELECT * REPLACE (1 - misselected AS misselected) FROM read_parquet('{parquet}'))"
        f" TO '{edited}' (FORMAT parquet)"
    )
    edited.replace(parquet)
    code, figures, err = report(out, capsys)
    assert code == 0 and "was not written by this judgeaudit" in err
    assert figures == report(out, capsys, "--engine", "sqlite")[1]


def test_the_runs_own_capability_fill_counts_once_and_keeps_the_triggers(tmp_path: Path) -> None:
    out = build_audit_db(tmp_path / "out")
    store = AuditStore(out / "audit.db")
    fill_capability(store, "r-main", "ABS(capability_a - capability_b)")
    store.close()
    db = sqlite3.connect(out / "audit.db")
    assert db.execute("SELECT edits FROM pairs_edits").fetchone() == (1,)
    with db:
        db.execute("UPDATE audit_pairs SET judge_score_a = 1.0 WHERE rowid IN (1, 2)")
    assert db.execute("SELECT edits FROM pairs_edits").fetchone() == (3,)

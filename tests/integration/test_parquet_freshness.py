"""A run's Parquet copy answers for the run only while audit.db's pairs are as they were when it
was written (analysis/engines/freshness.py): a hand ``UPDATE`` of audit.db afterwards sends
``--engine auto`` back to audit.db, with a note saying why, and ``--engine duckdb`` refuses the
copy in one line; ``export parquet`` writes a copy that answers again."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from judgeaudit.analysis.engines import SqlitePairs, auto
from judgeaudit.audit.store import AuditStore
from judgeaudit.audit.store.bulk import fill_capability
from judgeaudit.audit.store.parquet_out import write_pairs
from judgeaudit.audit.store.schema import EDIT_TRIGGERS
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


def _to_schema_3(out: Path) -> None:
    """audit.db as a release before the count of pair edits left it (no table, no triggers)."""
    db = sqlite3.connect(out / "audit.db")
    for trigger in EDIT_TRIGGERS:
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("DROP TABLE pairs_edits")
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()


def test_a_read_only_audit_db_of_schema_3_is_not_called_edited(out: Path) -> None:
    """Nothing counts its edits: the copy can be neither shown fresh nor stale. Before, the
    copy written before it was called edited, and one written from it foreign."""
    _to_schema_3(out)
    db = sqlite3.connect(f"file:{out / 'audit.db'}?mode=ro", uri=True)  # not migrated
    try:
        for written in ("before, stamped with a count", "from it, without one"):
            if written == "from it, without one":
                write_pairs(db, "r-main", out / "audit_pairs.parquet")
            pairs, note = auto.open_auto(db, out, "r-main")
            assert isinstance(pairs, SqlitePairs), written
            assert "aggregated by SQLite from audit.db: audit.db predates the count" in note
            assert "changed after" not in note and "not written by" not in note, note
            assert "export parquet there" in note, note
    finally:
        db.close()


@pytest.mark.skipif(not shutil.which("unshare"), reason="needs unshare for a read-only mount")
def test_duckdb_reads_the_copy_of_a_read_only_schema_3_audit_db(
    out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As a user finds it on a read-only share: ``--engine duckdb`` reads the run's copy as
    given (an older copy is), where it refused it as edited (exit 2)."""
    want = report(out, capsys, "--engine", "sqlite")[1]
    _to_schema_3(out)
    script = (
        f"mount --bind {out} {out} && mount -o remount,ro,bind {out} && "
        f"{sys.executable} -m judgeaudit report {out} --run r-main --format json"
        f" --engine duckdb > {tmp_path}/duck.json 2> {tmp_path}/duck.err;"
        f" echo $? > {tmp_path}/duck.rc"
    )
    mounted = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script])
    if not (tmp_path / "duck.rc").exists():
        pytest.skip(f"no read-only bind mount here (exit {mounted.returncode})")
    err = (tmp_path / "duck.err").read_text()
    assert (tmp_path / "duck.rc").read_text().strip() == "0", err
    assert json.loads((tmp_path / "duck.json").read_text()) == want
    db = sqlite3.connect(out / "audit.db")
    assert db.execute("PRAGMA user_version").fetchone() == (3,)  # read as it was, not migrated
    db.close()

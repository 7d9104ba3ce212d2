"""A report remembered across processes (analysis/report_memo.py; issue 23, goal 5): a later
``report`` of unchanged files prints the same bytes without computing, and any edit of audit.db
or of the Parquet DuckDB reads, a key-shaped value or a damaged cache computes again (files
written moments ago: test_report_memo_racy.py)."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from judgeaudit.analysis import report
from judgeaudit.analysis.engines import auto
from judgeaudit.analysis.frame import open_db
from judgeaudit.analysis.report_memo import FOLDER, SWITCH
from judgeaudit.audit.store import check_memo
from judgeaudit.cli import main
from tests.report_fixture import build_audit_db

HOUR = 3600
FORMATS = ("json", "table", "md", "csv", "html")


@pytest.fixture
def out(tmp_path: Path) -> Path:
    done = build_audit_db(tmp_path / "out", indexed=True)
    assert main(["export", "parquet", str(done), "--run", "r-main"]) == 0
    return done


def memo_on(monkeypatch: pytest.MonkeyPatch, cache: Path) -> list[Path]:
    """The memo on, in ``cache``, r-main on DuckDB; returns the audit.db opens of computed
    reports (a report read back from the memo opens none)."""
    monkeypatch.delenv(SWITCH, raising=False)
    monkeypatch.setenv("JUDGEAUDIT_CACHE_DIR", str(cache))
    monkeypatch.setattr(auto, "AUTO_FROM", 4000)  # r-main's 4,000 pairs go to DuckDB
    opened: list[Path] = []

    def spy(where: Path) -> sqlite3.Connection:
        opened.append(where)
        return open_db(where)

    monkeypatch.setattr(report, "open_db", spy)
    return opened


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[Path]]:
    """:func:`memo_on`, the clock 10 s ahead (the fixture's files count as settled)."""
    opened = memo_on(monkeypatch, tmp_path / "cache")
    later = time.time_ns() + 10 * 10**9
    monkeypatch.setattr(check_memo, "now_ns", lambda: later)
    yield opened


def _report(
    out: Path, capsys: pytest.CaptureFixture[str], *args: str, fmt: str = "json"
) -> tuple[str, str]:
    capsys.readouterr()
    assert main(["report", str(out), "--run", "r-main", "--format", fmt, *args]) == 0
    done = capsys.readouterr()
    return done.out, done.err


def _fresh(out: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The report computed with the memo off."""
    os.environ[SWITCH] = "0"
    try:
        return _report(out, capsys, *args)[0]
    finally:
        del os.environ[SWITCH]


def _edit(path: Path, sql: str) -> None:
    time.sleep(0.01)  # past the filesystem's timestamp tick
    db = sqlite3.connect(path)
    with db:
        db.execute(sql)
    db.close()


#: The judge's preference turned round on 40 decisive pairs it got right: 40 more misselected
#: (a file the column check passes: misselected still agrees with its pair).
FLIP = (
    "UPDATE audit_pairs SET misselected = 1 - misselected,"
    " judge_pref = CASE judge_pref WHEN 'A' THEN 'B' ELSE 'A' END WHERE rowid IN"
    " (SELECT rowid FROM audit_pairs WHERE run_id = 'r-main' AND misselected = 0"
    " AND success_a <> success_b AND judge_pref IN ('A', 'B') LIMIT 40)"
)


@pytest.mark.parametrize("engine", ["sqlite", "auto"])
def test_a_later_report_of_unchanged_files_prints_the_same_bytes_without_computing(
    out: Path, computed: list[Path], capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    first = {fmt: _report(out, capsys, "--engine", engine, fmt=fmt) for fmt in FORMATS}
    assert len(computed) == 1  # one report kept for every format
    again = {fmt: _report(out, capsys, "--engine", engine, fmt=fmt) for fmt in FORMATS}
    assert len(computed) == 1
    for fmt in FORMATS:
        assert again[fmt][0] == first[fmt][0], fmt
    if engine == "auto":  # the line naming the engine, and that the figures were kept
        assert first["json"][1].startswith("report: 4,000 pairs aggregated by DuckDB")
        assert again["json"][1] == (
            first["json"][1].rstrip("\n")
            + " (remembered from an earlier report of the same files)\n"
        )
    # other options are another report
    _report(out, capsys, "--engine", engine, "--threshold", "3")
    assert len(computed) == 2


@pytest.mark.parametrize("keep_mtime", [False, True])
def test_a_hand_edit_of_audit_db_is_never_answered_from_the_memo(
    out: Path, computed: list[Path], capsys: pytest.CaptureFixture[str], keep_mtime: bool
) -> None:
    db, sqlite = out / "audit.db", ("--engine", "sqlite")  # auto reads the pairs' Parquet
    before, _ = _report(out, capsys, *sqlite)
    stat = db.stat()
    _edit(db, FLIP)
    if keep_mtime:  # a careful hand edit restores the time; ctime cannot be set back
        os.utime(db, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    after, _ = _report(out, capsys, *sqlite)
    assert len(computed) == 2
    assert after != before
    assert after == _fresh(out, capsys, *sqlite)
    assert json.loads(after)["misselected"] != json.loads(before)["misselected"]


def test_an_edited_parquet_is_never_answered_from_the_memo(
    out: Path, computed: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, err = _report(out, capsys)
    assert "DuckDB" in err
    parquet = out / "audit_pairs.parquet"
    edited = out / "edited.parquet"
    duckdb.sql(
        f"COPY (SELECT * REPLACE (5.0 - judge_score_a AS judge_score_a) FROM read_parquet('{parquet}'))"
        f" TO '{edited}' (FORMAT parquet)"
    )
    os.replace(edited, parquet)
    after, err = _report(out, capsys)
    assert len(computed) == 2 and "remembered" not in err
    # computed again, from audit.db: the rewritten copy lost the run's stamp
    # (tests/integration/test_parquet_freshness.py)
    assert "was not written by this judgeaudit" in err
    assert after == _fresh(out, capsys) == _fresh(out, capsys, "--engine", "sqlite")


def test_a_report_holding_a_key_shaped_value_is_not_kept(
    out: Path, computed: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = {"run_id": "r-main", "settings": {"gap_source": "judge"}, "note": "sk-" + "a1" * 20}
    _edit(
        out / "audit.db",
        f"UPDATE runs SET manifest = '{json.dumps(manifest)}' WHERE run_id = 'r-main'",
    )
    _report(out, capsys)
    _report(out, capsys)
    assert len(computed) == 2
    assert not (out.parent / "cache" / FOLDER).exists()


@pytest.mark.parametrize("damage", ["garbage", "writable by others", "another key"])
def test_a_damaged_or_foreign_memo_is_computed_again(
    out: Path, computed: list[Path], capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    before, _ = _report(out, capsys)
    (kept,) = (out.parent / "cache" / FOLDER).iterdir()
    if damage == "garbage":
        kept.write_text("{not json")
    elif damage == "writable by others":
        kept.chmod(0o666)
    else:  # a valid memo renamed to this state's key: its own key no longer matches
        data = json.loads(kept.read_text())
        data["key"] = "0" * 32
        kept.write_text(json.dumps(data))
    after, _ = _report(out, capsys)
    assert len(computed) == 2
    assert after == before


def test_the_switch_turns_the_memo_off(
    out: Path, computed: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _fresh(out, capsys)
    _fresh(out, capsys)
    assert len(computed) == 2
    assert not (out.parent / "cache" / FOLDER).exists()


def test_a_kept_note_is_never_replayed_with_another_spelling_of_the_directory(
    out: Path, computed: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine's note names the Parquet as the command spelled OUT; a report of the same
    files asked for from another directory says its own spelling (it repeated the first one,
    so its suggested `export parquet` pointed elsewhere)."""
    _, first = _report(out, capsys)
    other = out.parent / ".." / out.parent.name / out.name  # the same directory, spelled anew
    assert other.resolve() == out.resolve() and str(other) != str(out)
    _, second = _report(other, capsys)
    assert len(computed) == 2 and "remembered" not in second
    assert f"from {other / 'audit_pairs.parquet'} " in second, second
    assert f"from {out / 'audit_pairs.parquet'} " in first, first
    _, third = _report(other, capsys)  # the same spelling again: read back
    assert len(computed) == 2 and "remembered" in third

"""Issue 27: a column of the wrong SQLite type in a hand-edited ``OUT/audit.db`` (text in a
flag or a score, a fraction in an integer, NULL where the schema says NOT NULL, a preference
outside A/B/tie, a blob where text goes) is refused by every reader in one line naming the file,
the table and column, the first offending row and what to do; exit 2, nothing written.

A ``misselected`` that disagrees with its pair's success flags and preference is refused the
same way (before: exit 70, "math domain error", where more pairs were misselected than decisive).

Before, ``report`` (every engine), ``judges``, ``report --format csv`` and ``export parquet``
crashed (exit 70: TypeError, ValueError, ArrowInvalid) and the others counted the value.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from judgeaudit.cli import main
from tests.audit_helpers import write_spec, write_tasks
from tests.badinput.hostile_cases import KEYLIKE
from tests.cli_helpers import cli

#: Rebuild audit_pairs as another tool would (CREATE TABLE AS keeps types, drops NOT NULL), so
#: a NULL can be stored where the schema says NOT NULL.
WITHOUT_NOT_NULL = """
CREATE TABLE loose AS SELECT * FROM audit_pairs;
DROP TABLE audit_pairs;
ALTER TABLE loose RENAME TO audit_pairs;
"""


@dataclass(frozen=True)
class DbCase:
    id: str
    sql: str
    #: table.column, and the table whose row the message names (by its id, at ``rowid``)
    column: str
    shown: str
    rowid: int = 2


DB_CASES = [
    DbCase(
        "text-in-a-flag",
        "UPDATE audit_pairs SET success_a = 'x' WHERE rowid = 2",
        "audit_pairs.success_a",
        "the text 'x' where 0 or 1 is expected",
    ),
    DbCase(
        "flag-out-of-range",
        "UPDATE audit_pairs SET misselected = 2 WHERE rowid = 3",
        "audit_pairs.misselected",
        "the integer 2 where 0 or 1",
        rowid=3,
    ),
    DbCase(
        "text-in-a-score",
        "UPDATE audit_pairs SET judge_score_b = 'high' WHERE rowid = 4",
        "audit_pairs.judge_score_b",
        "the text 'high' where a number is expected",
        rowid=4,
    ),
    DbCase(
        "real-in-an-integer",
        "UPDATE audit_pairs SET trial = 0.5 WHERE rowid = 2",
        "audit_pairs.trial",
        "the number 0.5 where an integer is expected",
    ),
    DbCase(
        "pref-outside-its-literal",
        "UPDATE audit_pairs SET judge_pref = 'C' WHERE rowid = 5",
        "audit_pairs.judge_pref",
        "the text 'C' where A, B or tie is expected",
        rowid=5,
    ),
    DbCase(
        "null-where-not-null",
        WITHOUT_NOT_NULL + "UPDATE audit_pairs SET success_b = NULL WHERE rowid = 2;",
        "audit_pairs.success_b",
        "nothing (NULL) where 0 or 1 is expected",
    ),
    DbCase(
        "blob-in-a-name",
        "UPDATE audit_pairs SET agent_a = x'00ff' WHERE rowid = 6",
        "audit_pairs.agent_a",
        "a blob where text is expected",
        rowid=6,
    ),
    DbCase(
        "text-in-trajectory-success",
        "UPDATE trajectories SET success = 'yes' WHERE rowid = 2",
        "trajectories.success",
        "the text 'yes' where 0 or 1",
    ),
    DbCase(
        "text-in-judge-log-latency",
        "UPDATE judge_logs SET latency_ms = 'slow' WHERE rowid = 2",
        "judge_logs.latency_ms",
        "the text 'slow' where a number",
    ),
    DbCase(
        "misselected-against-its-pair",
        "UPDATE audit_pairs SET misselected = 1 - misselected WHERE rowid = 3",
        "audit_pairs.misselected",
        "where what success_a, success_b and judge_pref say",
        rowid=3,
    ),
    DbCase(
        "key-pasted-in-a-pref",
        f"UPDATE audit_pairs SET pref_ab = '{KEYLIKE}' WHERE rowid = 2",
        "audit_pairs.pref_ab",
        "where A, B or tie is expected",
    ),
]

ID_COLUMN = {"audit_pairs": "pair_id", "trajectories": "traj_id", "judge_logs": "log_id"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A small finished run to damage, and its re-judge by another judge (what `judges` ranks
    and `compare` pairs with it)."""
    folder = tmp_path_factory.mktemp("typed-runs")
    write_tasks(folder / "tasks.jsonl", 3)
    spec = write_spec(folder / "spec.toml", tasks="tasks.jsonl")
    done = cli("run", str(spec), "--out", str(folder / "run"))
    assert done.returncode == 0, done.stderr
    done = cli(
        "rejudge", str(folder / "run"), "--out", str(folder / "rejudged"),
        "--judge-model", "judge-default:style=0.8",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder / "run", folder / "rejudged"


def readers(out: Path, other: Path, pair_id: str, tmp: Path) -> dict[str, list[str]]:
    """Every command that reads audit.db, each told to write into ``tmp`` (and the run that
    wrote it, told to resume)."""
    o, t = str(out), str(tmp)
    return {
        "report": ["report", o, "--output", f"{t}/r.html"],
        "report-csv": ["report", o, "--format", "csv", "--output", f"{t}/r.csv"],
        "report-duckdb": ["report", o, "--engine", "duckdb", "--output", f"{t}/d.json"],
        "report-spark": ["report", o, "--engine", "spark", "--output", f"{t}/s.json"],
        "judges": ["judges", o, str(other), "--output", f"{t}/j.txt"],
        "compare": ["compare", str(other), o],
        "show": ["show", o, pair_id],
        "review": ["review", "export", o, "--file", f"{t}/review.csv"],
        "trend": ["trend", o, "--format", "csv", "--output", f"{t}/t.csv"],
        "prefs": ["export", "preferences", o, "--format", "jsonl", "--out", f"{t}/p.jsonl"],
        "parquet": ["export", "parquet", o, "--to", f"{t}/pq", "--partition", "day"],
        "rejudge": ["rejudge", o, "--out", f"{t}/again"],
        # a writer too: the same run again into OUT (before, it rewrote audit_pairs.csv from the
        # edited row, then failed writing the Parquet with a line naming no file)
        "run": ["run", str(other.parent / "spec.toml"), "--out", o],
    }


def files(root: Path) -> dict[str, str]:
    """What is under ``root`` (SQLite's own -shm/-wal of a read-only open aside)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(("-shm", "-wal"))
    }


@pytest.mark.parametrize("case", DB_CASES, ids=[c.id for c in DB_CASES])
def test_every_reader_refuses_a_wrongly_typed_column_in_one_line(
    case: DbCase,
    runs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUDGEAUDIT_LOG_DIR", str(tmp_path / "logs"))  # a crash would show here
    out = tmp_path / "run"
    shutil.copytree(runs[0], out)
    db = sqlite3.connect(out / "audit.db")
    table = case.column.split(".")[0]
    (row_id,) = db.execute(
        f"SELECT {ID_COLUMN[table]} FROM {table} WHERE rowid = ?", (case.rowid,)
    ).fetchone()
    db.executescript(case.sql)
    db.close()
    (pair_id,) = (
        sqlite3.connect(runs[0] / "audit.db")
        .execute("SELECT pair_id FROM audit_pairs LIMIT 1")
        .fetchone()
    )
    before = files(tmp_path)
    for name, argv in readers(out, runs[1], pair_id, tmp_path).items():
        code = main(argv)
        captured = capsys.readouterr()
        lines = [line for line in captured.err.splitlines() if line.strip()]
        assert code == 2, (name, captured.err)
        assert len(lines) == 1 and "Traceback" not in captured.err, (name, captured.err)
        line = lines[0]
        for needle in (f"{out}/audit.db", case.column, row_id, case.shown, "re-run the audit"):
            assert needle in line, (name, line)
        assert KEYLIKE not in line + captured.out, (name, line)
        assert files(tmp_path) == before, f"{name} wrote something"


def test_a_damaged_database_is_refused_by_the_installed_command(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """The first row again as a user runs it: a real process, its exit code and stderr."""
    out = tmp_path / "run"
    shutil.copytree(runs[0], out)
    db = sqlite3.connect(out / "audit.db")
    db.execute("UPDATE audit_pairs SET success_a = 'x'")
    db.commit()
    db.close()
    done = cli("judges", str(out), str(runs[1]), env={"JUDGEAUDIT_LOG_DIR": str(tmp_path)})
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "audit_pairs.success_a" in done.stderr

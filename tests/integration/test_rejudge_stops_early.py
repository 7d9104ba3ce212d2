"""A re-judge whose first pairs all got no verdict stops there (twenty-eighth session): the
demo re-judged with a typo'd ``--judge-model`` made all 2,520 judge calls before its exit-1
line. The same line, exit 1, with the pairs it stopped at; the run kept, incomplete, its files
what audit.db holds; a judge that gives verdicts at times still runs to the end."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

from judgeaudit.audit.units.first_verdicts import FIRST_PAIRS
from tests.audit_helpers import finished_run
from tests.cli_helpers import cli


def test_a_rejudge_without_a_verdict_in_its_first_pairs_stops(tmp_path: Path) -> None:
    source = finished_run(tmp_path, 8)  # three pairs a task
    db = sqlite3.connect(source / "audit.db")
    ((total,),) = db.execute("SELECT COUNT(*) FROM audit_pairs").fetchall()
    db.close()
    assert total > FIRST_PAIRS  # room to see it stop
    out = tmp_path / "rj"
    args = ("rejudge", str(source), "--out", str(out), "--events", "progress")
    done = cli(*args, "--judge-model", "judge-defualt", "--concurrency", "1")
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("judgeaudit:")]
    assert len(lines) == 1 and "warning:" not in done.stderr, done.stderr
    orders = 2 * FIRST_PAIRS  # one worker: it stopped at the pair that made FIRST_PAIRS
    assert lines[0].startswith(
        "judgeaudit: rejudge failed: judge model 'judge-defualt' gave no verdict on any order"
        f" ({orders}/{orders}, stopped once {FIRST_PAIRS} pairs had none; run "
    ), lines[0]
    assert "check --judge-model" in lines[0] and "compare them with" not in done.stdout

    db = sqlite3.connect(out / "audit.db")  # kept, as the line says, for report to show
    assert db.execute("SELECT status FROM runs").fetchall() == [("incomplete",)]
    ((stored,),) = db.execute("SELECT COUNT(*) FROM audit_pairs").fetchall()
    db.close()
    assert stored == FIRST_PAIRS
    with (out / "audit_pairs.csv").open(encoding="utf-8") as handle:
        assert len(list(csv.DictReader(handle))) == stored  # the files say what audit.db holds
    shown = cli("report", str(out))
    assert shown.returncode == 0 and "parse failures" in shown.stdout, shown.stderr

    fixed = cli(*args, "--judge-model", "judge-default")  # the model fixed: a finished run
    assert fixed.returncode == 0 and "re-judged" in fixed.stdout, fixed.stderr

    # a judge whose replies break at times gives verdicts in its first pairs: it runs through
    some = cli(*args, "--judge-model", "judge-default:malformed=1")
    assert some.returncode == 0, some.stderr
    db = sqlite3.connect(out / "audit.db")
    assert db.execute("SELECT status FROM runs ORDER BY rowid").fetchall()[1:] == [
        ("finished",),
        ("finished",),
    ]
    db.close()

"""A re-judge whose judge gave no verdict on any order (a typo'd ``--judge-model``, which the
embedded provider answers with chat filler) exited 0 behind a warning: judging is all a
re-judge does, so it failed. Exit 1, one line naming the model and what to do; the run kept.
A judge that left only some orders without a verdict still warns and exits 0 (docs/judge.md)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.audit_helpers import finished_run
from tests.cli_helpers import cli


def test_a_rejudge_that_judged_nothing_fails_with_one_line(tmp_path: Path) -> None:
    source = finished_run(tmp_path, 2)
    out = tmp_path / "rj"
    args = ("rejudge", str(source), "--out", str(out), "--events", "progress")
    done = cli(*args, "--judge-model", "judge-defualt")
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("judgeaudit:")]
    assert len(lines) == 1 and "warning:" not in done.stderr, done.stderr
    assert lines[0].startswith(
        "judgeaudit: rejudge failed: judge model 'judge-defualt' gave no verdict on any order ("
    )
    assert "check --judge-model" in lines[0] and "compare them with" not in done.stdout
    db = sqlite3.connect(out / "audit.db")  # kept, as the line says, for report to show
    assert db.execute("SELECT status FROM runs").fetchall() == [("finished",)]
    db.close()

    # several judges: the one that judged nothing fails the command, the others still run
    both = cli(*args, "--judge-model", "judge-defualt", "--judge-model", "judge-strict")
    assert both.returncode == 1 and "'judge-defualt'" in both.stderr, both.stderr
    assert "re-judged" in both.stdout and "judge-strict" not in both.stderr

    # a judge whose replies break only at times gave verdicts: exit 0, as documented
    some = cli(*args, "--judge-model", "judge-default:malformed=1")
    assert some.returncode == 0, some.stderr


def test_without_judge_model_the_line_names_the_source_run_s_judge(tmp_path: Path) -> None:
    """No --judge-model: the source run's judge is re-run, so 'check --judge-model' named an
    option the user never gave (a reviewer's finding)."""
    source = finished_run(tmp_path, 2, judge="judge-defualt")
    done = cli("rejudge", str(source), "--out", str(tmp_path / "rj"), "--events", "progress")
    assert done.returncode == 1, done.stderr
    assert "gave no verdict on any order" in done.stderr
    assert "check the judge's endpoint (the source run's judge model: no --judge-model given)" in (
        done.stderr
    )
    assert "check --judge-model" not in done.stderr

"""A re-judge whose first pairs all got no verdict stops there (twenty-eighth session): the
demo re-judged with a typo'd ``--judge-model`` made all 2,520 judge calls before its exit-1
line. It stops once :data:`FIRST_PAIRS` pairs on :data:`FIRST_TASKS` tasks got none, says what
the judge replied, and undoes the run: a new folder is not left behind, a folder that held
runs keeps its files as they were, and the same command (the fault fixed outside the spec, say
at the gateway) starts afresh instead of resuming pairs without a verdict."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from judgeaudit.audit.units.first_verdicts import FIRST_PAIRS, FIRST_TASKS
from tests.audit_helpers import finished_run
from tests.cli_helpers import cli

TYPO = "judge-defualt"


def digests(folder: Path) -> dict[str, str]:
    """Each file's digest (the judge log's lines sorted: written live in the order calls end,
    exported again in the store's order)."""
    found = {}
    for path in sorted(folder.iterdir()):
        if path.is_file() and not path.name.startswith("audit.db"):
            data = path.read_bytes()
            if path.name == "judge_logs.jsonl":
                data = b"".join(sorted(data.splitlines(keepends=True)))
            found[path.name] = hashlib.sha256(data).hexdigest()
    return found


def runs(folder: Path) -> list[tuple[str, str]]:
    db = sqlite3.connect(folder / "audit.db")
    try:
        return db.execute("SELECT run_id, status FROM runs ORDER BY rowid").fetchall()
    finally:
        db.close()


def test_a_rejudge_without_a_verdict_in_its_first_pairs_stops_and_keeps_nothing(
    tmp_path: Path,
) -> None:
    source = finished_run(tmp_path, 8)  # three pairs a task, task by task
    out = tmp_path / "rj"
    args = ("rejudge", str(source), "--out", str(out), "--events", "progress")
    done = cli(*args, "--judge-model", TYPO, "--concurrency", "1")
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("judgeaudit:")]
    assert len(lines) == 1 and "warning:" not in done.stderr, done.stderr
    # one worker: it stopped at the pair that made FIRST_PAIRS, by then on seven tasks
    assert FIRST_TASKS <= 7
    assert lines[0].startswith(
        f"judgeaudit: rejudge failed: judge model '{TYPO}' gave no verdict on any of"
        f" {2 * FIRST_PAIRS} orders of the first {FIRST_PAIRS} pairs, on 7 tasks; stopped,"
        f" nothing kept ({out} as before); the judge's first reply: '"
    ), lines[0]
    assert lines[0].endswith(
        "check --judge-model (a typo, or a model whose replies carry no verdict) and rerun"
    )
    assert not out.exists()  # the folder this re-judge made is gone with it

    fixed = cli(*args, "--judge-model", "judge-default")  # the model fixed: a finished run
    assert fixed.returncode == 0 and "re-judged" in fixed.stdout, fixed.stderr
    assert [status for _, status in runs(out)] == ["finished"]


def test_a_stopped_rejudge_into_a_folder_with_runs_leaves_its_files_as_they_were(
    tmp_path: Path,
) -> None:
    source = finished_run(tmp_path, 8)
    before_files, before_runs = digests(source), runs(source)
    args = ("rejudge", str(source), "--out", str(source), "--judge-model", TYPO)
    done = cli(*args, "--events", "progress")
    assert done.returncode == 1 and "nothing kept" in done.stderr, done.stderr
    assert runs(source) == before_runs  # no incomplete run to resume with verdict-less pairs
    assert digests(source) == before_files  # report.html, the CSV, the Parquet: one run's
    again = cli(*args, "--events", "progress")  # the same command: stops again, from scratch
    assert again.returncode == 1 and f"first {FIRST_PAIRS}" in again.stderr, again.stderr
    assert "resum" not in again.stdout + again.stderr

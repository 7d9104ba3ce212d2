"""One conversation, one success mark (found by a new user: ace's retail-001/t0 marked 1 in pair
ace~keen and 0 in ace~pro was stored, "stored 2", exit 0; the report kept one mark and the
preference export wrote that conversation chosen in one pair and rejected in the other).
`review import` refuses two marks of one conversation that disagree, in one file or against a
label stored before, in one line naming both places and the conversation; nothing is stored."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli, cli_ok

HEADER = "pair_id,human_success_a,human_success_b,human_pref,note\n"


def labels_stored(out: Path) -> int:
    db = sqlite3.connect(out / "audit.db")
    try:
        return int(db.execute("SELECT COUNT(*) FROM human_labels").fetchone()[0])
    finally:
        db.close()


def test_two_marks_of_one_conversation_that_disagree_are_refused(tmp_path: Path) -> None:
    write_tasks(tmp_path / "tasks.jsonl", 2)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    out = tmp_path / "out"
    cli_ok("run", str(spec), "--out", str(out), "--events", "jsonl")
    db = sqlite3.connect(out / "audit.db")
    (first, agent, task, trial), (second, *_) = (
        db.execute(
            "SELECT p.pair_id, p.agent_a, p.task_id, p.trial FROM audit_pairs p JOIN audit_pairs q"
            " ON q.agent_a = p.agent_a AND q.task_id = p.task_id AND q.trial = p.trial"
            " AND q.run_id = p.run_id AND q.pair_id > p.pair_id ORDER BY p.pair_id, q.pair_id LIMIT 1"
        ).fetchone(),
        db.execute(
            "SELECT q.pair_id FROM audit_pairs p JOIN audit_pairs q ON q.agent_a = p.agent_a"
            " AND q.task_id = p.task_id AND q.trial = p.trial AND q.run_id = p.run_id"
            " AND q.pair_id > p.pair_id ORDER BY p.pair_id, q.pair_id LIMIT 1"
        ).fetchone(),
    )
    (run,) = db.execute("SELECT run_id FROM runs").fetchone()
    db.close()

    both = tmp_path / "both.csv"
    both.write_text(HEADER + f"{first},1,,,\n{second},0,,,\n")
    done = cli("review", "import", str(out), str(both))
    assert done.returncode == 2
    assert done.stderr == (
        f"judgeaudit: {both}:3: pair {second} human_success_a 0 contradicts {both}:2 (pair "
        f"{first} human_success_a 1): both mark {agent}'s conversation {task}/t{trial} of run "
        f"{run}, which succeeded or failed once whichever pair shows it; give both the same "
        "mark (nothing was stored)\n"
    )
    assert labels_stored(out) == 0

    same = tmp_path / "same.csv"
    same.write_text(HEADER + f"{first},1,,,\n{second},1,,,\n")  # agreeing marks: stored
    assert "stored 2 labelled pairs" in cli_ok("review", "import", str(out), str(same)).stdout

    later = tmp_path / "later.csv"
    later.write_text(HEADER + f"{second},0,,,\n")  # against the stored mark of `first`
    done = cli("review", "import", str(out), str(later))
    assert done.returncode == 2
    assert f"contradicts a label stored before (pair {first} human_success_a 1)" in done.stderr
    assert f"label its pair again in {later}" in done.stderr
    fixed = tmp_path / "fixed.csv"  # both pairs again, the mark corrected in both: stored
    fixed.write_text(HEADER + f"{first},0,,,\n{second},0,,,\n")
    cli_ok("review", "import", str(out), str(fixed))


def test_nothing_to_store_and_forms_other_than_0_1_are_refused(tmp_path: Path) -> None:
    """A new user: a header-only sample printed "stored 0 labelled pairs; report.html shows
    them" (exit 0), an empty file "missing columns", and `yes` was stored although the refusal
    of `maybe` said 0/1. Each is now one line, exit 2, nothing stored."""
    write_tasks(tmp_path / "tasks.jsonl", 2)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    out = tmp_path / "out"
    cli_ok("run", str(spec), "--out", str(out), "--events", "jsonl")
    db = sqlite3.connect(out / "audit.db")
    (pair,) = db.execute("SELECT pair_id FROM audit_pairs ORDER BY pair_id LIMIT 1").fetchone()
    db.close()
    header, empty, yes = tmp_path / "header.csv", tmp_path / "empty.csv", tmp_path / "yes.csv"
    header.write_text(HEADER)
    empty.write_text("")
    yes.write_text(HEADER + f"{pair},yes,,,\n")
    for path, line in (
        (header, f"{header}: no row holds a label, so nothing was stored; fill in "
                 "human_success_a/_b (0/1) or human_pref (A/B/tie) on the pairs you reviewed"),
        (empty, f"{empty} is empty; fill in a sample from `judgeaudit review export`"),
        (yes, f"{yes}:2: human_success_a: 'yes' is not 0/1; leave it empty to skip"),
    ):  # fmt: skip
        done = cli("review", "import", str(out), str(path))
        assert (done.returncode, done.stderr, done.stdout) == (2, f"judgeaudit: {line}\n", "")
    assert labels_stored(out) == 0


def test_two_stored_marks_that_disagree_do_not_block_other_labels(tmp_path: Path) -> None:
    """Found this session: two labels stored before the check, marking one conversation 1 and
    0, made every later `review import` refuse (`stored: pair … contradicts a label stored
    before …`), whatever the file labelled. They are the report's to name; a file is refused
    only for its own marks."""
    write_tasks(tmp_path / "tasks.jsonl", 2)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    out = tmp_path / "out"
    cli_ok("run", str(spec), "--out", str(out), "--events", "jsonl")
    with sqlite3.connect(out / "audit.db") as db:
        first, second, task = db.execute(
            "SELECT p.pair_id, q.pair_id, p.task_id FROM audit_pairs p JOIN audit_pairs q"
            " ON q.agent_a = p.agent_a AND q.task_id = p.task_id AND q.trial = p.trial"
            " AND q.run_id = p.run_id AND q.pair_id > p.pair_id ORDER BY p.pair_id LIMIT 1"
        ).fetchone()
        (other,) = db.execute(
            "SELECT pair_id FROM audit_pairs WHERE task_id != ? LIMIT 1", (task,)
        ).fetchone()
        db.executemany(
            "INSERT INTO human_labels (pair_id, human_success_a) VALUES (?, ?)",
            [(first, 1), (second, 0)],
        )
    path = tmp_path / "other.csv"
    path.write_text(HEADER + f"{other},,,A,\n")
    done = cli("review", "import", str(out), str(path))
    assert (done.returncode, done.stderr) == (0, "")
    assert labels_stored(out) == 3

"""The wrong file given to ``review import`` or ``rejudge --judge-prompt``: one line naming the
file and what the command takes (twenty-eighth session). ``review import OUT audit.db`` said
"give the JSONL, JSON or TOML file" to a command that takes a CSV; a CSV as the judge prompt
said only "not valid TOML"; a missing one said "relative to the spec", which rejudge has not."""

from __future__ import annotations

from pathlib import Path

from tests.audit_helpers import finished_run
from tests.cli_helpers import cli


def test_each_wrong_file_is_named_with_what_the_command_takes(tmp_path: Path) -> None:
    out = finished_run(tmp_path, 1)
    db = out / "audit.db"
    labels = cli("review", "import", str(out), str(db))
    assert labels.returncode == 2
    assert labels.stderr.startswith(
        f"judgeaudit: {db}: is an SQLite database (an audit's audit.db?), not a text file; give"
        " the filled-in review CSV, `review_sample.csv` from `judgeaudit review export`"
    ), labels.stderr
    assert "JSONL" not in labels.stderr and labels.stderr.count("\n") == 1

    sheet = tmp_path / "prompt.csv"
    sheet.write_text("system,user\nbe fair,judge {task}\n", encoding="utf-8")
    redo = tmp_path / "redo"
    as_csv = cli("rejudge", str(out), "--judge-prompt", str(sheet), "--out", str(redo))
    assert as_csv.returncode == 2 and as_csv.stderr.count("\n") == 1, as_csv.stderr
    assert as_csv.stderr.startswith(f"judgeaudit: {sheet}: not valid TOML (")
    assert as_csv.stderr.rstrip().endswith("; a judge prompt template is a TOML file")

    gone = tmp_path / "judge.toml"
    missing = cli("rejudge", str(out), "--judge-prompt", str(gone), "--out", str(redo))
    assert missing.returncode == 2
    assert missing.stderr == (
        f"judgeaudit: rejudge: --judge-prompt: {gone}: no such file; give a judge prompt"
        " template, a TOML file with `user = ...` (docs/judge.md)\n"
    )
    assert not redo.exists()  # nothing written

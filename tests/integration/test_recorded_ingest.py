"""A recorded-verdicts run parses its pairs file once: the validation pass prepares the rows in a
scratch file and the store pass copies them (issue 23, goal 4). What a user must still see: a
key quoted in the logs is stored masked in every content column, a bad line is one error naming
file, line and field with nothing stored, the same pairs stored on a resume, and no scratch file
left behind in the temporary directory, even by a run killed with ``kill -9``."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.cli_helpers import cli, cli_ok

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
SPEC = '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[gap]\nsource = "judge"\n[judge]\nsource = "recorded"\n'
KEY = "sk-INGEST-canary-" + "0a1b2c3d4e5f"  # a key shape, not a real key


def quoting_log(tmp: Path) -> Path:
    """The example recorded-verdict log, each conversation and each judge reply quoting a key."""
    records = [
        json.loads(line)
        for line in (ROLLOUTS / "recorded-verdicts.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    for record in records:
        if record["type"] == "pair":
            record["context"] = f"policy: never print {KEY}"
            for side in ("trajectory_a", "trajectory_b"):
                record[side] = [{"role": "user", "content": f"my key {KEY} stopped working"}]
        else:
            record["raw_output"] = f'{{"winner": "{record["winner"]}"}} (key was {KEY})'
    path = tmp / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def stored_text(db_path: Path) -> list[str]:
    """Every text value of every table of ``audit.db``."""
    db = sqlite3.connect(db_path)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return [
            value
            for table in tables
            for row in db.execute(f'SELECT * FROM "{table}"')
            for value in row
            if isinstance(value, str)
        ]
    finally:
        db.close()


def test_keys_in_a_recorded_log_are_stored_masked_and_no_scratch_file_is_left(
    tmp_path: Path,
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {"TMPDIR": str(scratch)}
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    killed = scratch / f"judgeaudit-rows-{gone}-x1y2"  # rows of a run killed with kill -9
    killed.mkdir()
    (killed / "scan.db").write_bytes(b"\0" * 1024)
    cli_ok("import", "recorded-jsonl", str(quoting_log(tmp_path)), "--out",
           str(tmp_path / "pairs.jsonl"), env=env)  # fmt: skip
    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")
    out = tmp_path / "out"
    cli_ok("run", str(tmp_path / "spec.toml"), "--out", str(out), env=env)
    text = stored_text(out / "audit.db")
    assert not [t for t in text if KEY in t]
    masked = [t for t in text if "…4e5f" in t]  # stored, masked: the conversation, the context
    assert any("my key …4e5f" in t for t in masked), masked[:3]  # and the judge's reply
    assert any("policy: never print …4e5f" in t for t in masked)
    assert any("(key was …4e5f" in t for t in masked)
    db = sqlite3.connect(out / "audit.db")
    stored = db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0]
    assert stored == 40
    assert db.execute("SELECT COUNT(*) FROM judge_logs").fetchone()[0] == 80
    assert db.execute("SELECT COUNT(*) FROM trajectories WHERE context IS NULL").fetchone()[0] == 0
    db.close()
    assert list(scratch.iterdir()) == []  # the prepared rows went with the run, and the
    # killed run's went with the next run that prepared rows

    # The same spec again: the run is found finished, nothing is stored twice.
    cli_ok("run", str(tmp_path / "spec.toml"), "--out", str(out), env=env)
    db = sqlite3.connect(out / "audit.db")
    assert db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0] == 40
    db.close()


def test_a_bad_line_in_the_pairs_file_is_one_error_and_nothing_is_stored(tmp_path: Path) -> None:
    cli_ok("import", "recorded-jsonl", str(ROLLOUTS / "recorded-verdicts.jsonl"), "--out",
           str(tmp_path / "pairs.jsonl"))  # fmt: skip
    lines = (tmp_path / "pairs.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[29])
    row["verdicts"][0]["winner"] = "left"
    lines[29] = json.dumps(row)
    (tmp_path / "pairs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")
    out = tmp_path / "out"
    result = cli("run", str(tmp_path / "spec.toml"), "--out", str(out))
    assert result.returncode == 2, result.stderr
    error = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(error) == 1, error
    assert "pairs.jsonl:30: verdicts[0].winner" in error[0], error
    assert not out.exists()  # refused before OUT was made: no half-written run


def test_a_misspelt_field_is_named_beside_the_missing_one(tmp_path: Path) -> None:
    """`sucess_b` for `success_b` was refused as "success_b: missing" alone (a new user's
    trial): the line's close unknown field is named too."""
    log = tmp_path / "typo.jsonl"
    log.write_text(
        '{"type": "pair", "pair_id": "p1", "task_id": "t", "agent_a": "a", "agent_b": "b",'
        ' "success_a": 1, "sucess_b": 0}\n',
        encoding="utf-8",
    )
    done = cli("import", "recorded-jsonl", str(log), "--out", str(tmp_path / "p.jsonl"))
    assert done.returncode == 2 and not (tmp_path / "p.jsonl").exists()
    assert f"{log}:1: success_b: missing; the line has 'sucess_b': a typo?" in done.stderr

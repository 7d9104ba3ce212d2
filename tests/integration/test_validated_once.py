"""``import`` validates a recorded log once for the import and the run (issue 23, goal 4): it
records beside the pairs file what it checked, and the run that finds the record matching the
file's bytes builds its rows without checking them again. What a user must see: the same stored
audit with or without the record, and a file edited after the import validated again and
refused in one line naming file, line and field, nothing stored."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.audit.inputs import recorded_verdicts
from judgeaudit.audit.inputs.checked import CHECKS_VERSION, Checked, file_sha256, write_checked
from judgeaudit.audit.spec import parse_spec, read_spec
from tests.cli_helpers import cli, cli_ok

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
SPEC = '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[gap]\nsource = "judge"\n[judge]\nsource = "recorded"\n'


def imported(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    cli_ok("import", "recorded-jsonl", str(ROLLOUTS / "recorded-verdicts.jsonl"), "--out",
           str(folder / "pairs.jsonl"))  # fmt: skip
    (folder / "spec.toml").write_text(SPEC, encoding="utf-8")
    return folder / "pairs.jsonl"


def stored(db_path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every stored row of the run's tables, without the time it was stored at."""
    db = sqlite3.connect(db_path)
    try:
        out = {}
        for table in ("trajectories", "audit_pairs", "judge_logs", "tasks", "runs"):
            names = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
            if table == "runs":
                names = names[:2]  # the run id and spec hash (the manifest names its start)
            kept = ", ".join(f'"{n}"' for n in names if n not in ("created_at", "started_at",
                                                                 "finished_at", "updated_at"))  # fmt: skip
            out[table] = sorted(map(tuple, db.execute(f"SELECT {kept} FROM {table}")), key=repr)
        return out
    finally:
        db.close()


def test_the_run_stores_the_same_audit_with_or_without_the_import_record(tmp_path: Path) -> None:
    pairs = imported(tmp_path / "a")
    record = json.loads((tmp_path / "a" / "pairs.jsonl.checked.json").read_text())
    assert record["sha256"] == file_sha256(pairs) and record["pairs"] == 40
    (tmp_path / "b").mkdir()
    shutil.copy(pairs, tmp_path / "b" / "pairs.jsonl")  # no record: validated in full
    shutil.copy(tmp_path / "a" / "spec.toml", tmp_path / "b" / "spec.toml")
    for name in ("a", "b"):
        cli_ok("run", str(tmp_path / name / "spec.toml"), "--out", str(tmp_path / name / "out"))
    trusted, checked = stored(tmp_path / "a/out/audit.db"), stored(tmp_path / "b/out/audit.db")
    assert len(trusted["audit_pairs"]) == 40 and trusted == checked  # same run id, same rows


def test_a_hand_edited_imported_file_is_validated_again_and_refused_in_one_line(
    tmp_path: Path,
) -> None:
    pairs = imported(tmp_path)
    lines = pairs.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[4])
    row["success_a"] = 2
    lines[4] = json.dumps(row)
    pairs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert (tmp_path / "pairs.jsonl.checked.json").exists()  # the record is there, stale
    result = cli("run", str(tmp_path / "spec.toml"), "--out", str(tmp_path / "out"))
    assert result.returncode == 2, result.stderr
    error = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(error) == 1, error
    assert "pairs.jsonl:5: success_a: must be 0/1 or true/false" in error[0], error
    assert not (tmp_path / "out").exists()


def test_the_run_checks_rows_only_when_the_record_does_not_match_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = imported(tmp_path)
    spec = parse_spec(read_spec(tmp_path / "spec.toml"), tmp_path / "spec.toml")
    full = recorded_verdicts.scan(pairs, spec)
    assert full.rows is not None
    full.rows.close()

    def refuse(*_: Any) -> Any:
        raise AssertionError("validated again")

    monkeypatch.setattr(recorded_verdicts, "parse_pair", refuse)
    once = recorded_verdicts.scan(pairs, spec)  # the record matches: no row is checked again
    assert once.rows is not None
    once.rows.close()
    assert (once.pairs, once.content, once.period) == (full.pairs, full.content, full.period)
    with pairs.open("a", encoding="utf-8") as handle:
        handle.write("\n")  # one byte more: the record no longer describes the file
    with pytest.raises(AssertionError, match="validated again"):
        recorded_verdicts.scan(pairs, spec)


def test_an_import_of_another_format_to_the_same_file_removes_the_record(tmp_path: Path) -> None:
    pairs = imported(tmp_path)
    cli_ok("import", "openai-jsonl", str(ROLLOUTS / "openai-rollouts.jsonl"), "--out", str(pairs))
    assert not (tmp_path / "pairs.jsonl.checked.json").exists()


def test_a_record_of_an_older_release_s_checks_is_not_trusted(tmp_path: Path) -> None:
    """A record written before a check was added (here: agent names with a trial-like part,
    which made two pairs share one id) must not let its file skip that check: the run
    validates in full and refuses the file in one line (the reviewer's reproduction)."""
    folder = tmp_path / "old"
    folder.mkdir()
    rows: list[dict[str, Any]] = [
        {"pair_id": "p1", "task_id": "x/t0/y", "agent_a": "z", "agent_b": "w"},
        {"pair_id": "p2", "task_id": "x", "agent_a": "y/t0/z", "agent_b": "w"},
    ]
    lines = []
    for row in rows:  # as an import before the rule wrote them: the row, its verdicts joined
        row |= {"success_a": 1, "success_b": 0, "task": "t", "trajectory_a": [],
                "trajectory_b": []}  # fmt: skip
        row["verdicts"] = [
            {"order": o, "winner": "A", "score_a": None, "score_b": None, "raw_output": None,
             "reasons": []}
            for o in ("AB", "BA")
        ]  # fmt: skip
        lines.append(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
    pairs = folder / "pairs.jsonl"
    pairs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    older = Checked(file_sha256(pairs), 2, "0" * 16, None, version=CHECKS_VERSION - 1)
    write_checked(pairs, older)  # the record of an import made before the rule
    (folder / "spec.toml").write_text(SPEC, encoding="utf-8")
    result = cli("run", str(folder / "spec.toml"), "--out", str(folder / "out"))
    assert result.returncode == 2, result.stderr
    assert "pairs.jsonl:2: agent_a: 'y/t0/z' has the part 't0'" in result.stderr, result.stderr
    assert not (folder / "out").exists()

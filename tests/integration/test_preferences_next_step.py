"""A refused preference export names a next step that works on that run (a new user: on a
recorded run without transcripts, `--format openai` said "try --format trl or jsonl", and trl,
refused too, said nothing). The step is found by trying it; following it writes the rows it
counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.cli import main

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
SPEC = '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'


def _recorded_without_transcripts(tmp: Path, agent_turns_only: bool = False) -> Path:
    """The example log without its transcripts, or (``agent_turns_only``) with the agent's
    turns alone: text a jsonl row carries, but no user turn for trl nor a shared prompt for
    openai."""
    log = tmp / "log.jsonl"
    with log.open("w", encoding="utf-8") as handle:
        for line in (ROLLOUTS / "recorded-verdicts.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for side in ("trajectory_a", "trajectory_b"):
                turns = record.pop(side, None)
                if agent_turns_only and turns is not None:
                    record[side] = [t for t in turns if t["role"] != "user"]
            handle.write(json.dumps(record) + "\n")
    assert main(["import", "recorded-jsonl", str(log), "--out", str(tmp / "pairs.jsonl")]) == 0
    (tmp / "spec.toml").write_text(SPEC, encoding="utf-8")
    assert main(["run", str(tmp / "spec.toml"), "--out", str(tmp / "out")]) == 0
    return tmp / "out"


def test_each_refusal_names_a_format_that_writes_this_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _recorded_without_transcripts(tmp_path, agent_turns_only=True)
    capsys.readouterr()
    for fmt in ("openai", "trl"):
        dest = tmp_path / "new" / "folders" / f"{fmt}.jsonl"
        assert main(["export", "preferences", str(out), "--format", fmt, "--out", str(dest)]) == 2
        err = capsys.readouterr().err
        assert f"no pair could be written as {fmt} with --labels state" in err
        assert err.rstrip().endswith("; try --format jsonl, which writes 24 rows of this run"), err
        assert "try --format trl" not in err
        assert not (tmp_path / "new").exists()  # nothing left, not even the folders it made
    dest = tmp_path / "new" / "folders" / "jsonl.jsonl"  # made, as every named output's are
    assert main(["export", "preferences", str(out), "--format", "jsonl", "--out", str(dest)]) == 0
    decisive = sum(1 for _ in dest.open(encoding="utf-8"))
    assert decisive == 24  # the run's decisive pairs: 24 of 40 in the example log


def test_a_run_without_conversation_text_says_so_not_try_jsonl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new user: on a log with no transcripts, trl and openai said "try --format jsonl", whose
    rows then carried empty trajectories (and the counted reasons, no_user_message and
    identical_outputs, hid the cause)."""
    out = _recorded_without_transcripts(tmp_path)
    capsys.readouterr()
    for fmt in ("openai", "trl"):
        dest = tmp_path / f"{fmt}.jsonl"
        assert main(["export", "preferences", str(out), "--format", fmt, "--out", str(dest)]) == 2
        err = capsys.readouterr().err
        assert err.rstrip().endswith(
            "; the run stored no conversation text (its log had no trajectory_a/trajectory_b), "
            "so no format gives a trainer a prompt and responses: import the log with its "
            "trajectories (docs/rollouts.md) and run it again"
        ), err
        assert "try --format" not in err and not dest.exists()

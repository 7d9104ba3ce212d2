"""τ-bench's own layout: one agent, several trials per task, trials as the pair. A re-judge of it
keeps every trial pair (t0~t1, t0~t2, t1~t2) apart, and every comparison over the same imported
conversations is paired, whether it is a re-judge or a second run over the same pairs file."""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path

import pytest

from tests.cli_helpers import cli

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
SPEC = """[run]
name = "tau"
imported = "pairs.jsonl"
[gap]
source = "judge"  # one agent's trial pairs: the capability gap is 0 by construction (refused)
[endpoints.sim]
base_url = "embedded"
[judge]
model = "{model}"
endpoint = "sim"
"""


@pytest.fixture(scope="module")
def tau(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A τ-bench results file of one agent with three trials of each of three tasks (the
    example's two, and a third whose reward is flipped), imported with --pairing trials."""
    folder = tmp_path_factory.mktemp("tau")
    results = json.loads((ROLLOUTS / "tau-bench-gpt-4o.json").read_text(encoding="utf-8"))
    third = []
    for record in results:
        if record["trial"] == 1:
            extra = copy.deepcopy(record)
            extra["trial"], extra["reward"] = 2, 1.0 - record["reward"]
            third.append(extra)
    (folder / "results.json").write_text(json.dumps(results + third), encoding="utf-8")
    done = cli(
        "import",
        "tau-bench",
        str(folder / "results.json"),
        "--agent",
        "gpt-4o",
        "--pairing",
        "trials",
        "--out",
        str(folder / "pairs.jsonl"),
    )
    assert done.returncode == 0, done.stderr
    assert "9 across trials" in done.stdout
    for name, model in (("base", "judge-default"), ("strict", "judge-strict")):
        (folder / f"{name}.toml").write_text(SPEC.format(model=model), encoding="utf-8")
        ran = cli(
            "run", str(folder / f"{name}.toml"), "--out", str(folder / name), "--events", "jsonl"
        )
        assert ran.returncode == 0, ran.stderr
    return folder


def _pairs(out: Path) -> list[tuple[str, int, int, int, int]]:
    db = sqlite3.connect(out / "audit.db")
    try:
        rows = db.execute(
            "SELECT task_id, trial, trial_b, success_a, success_b FROM audit_pairs ORDER BY pair_id"
        ).fetchall()
    finally:
        db.close()
    return [tuple(r) for r in rows]


def test_rejudge_of_a_trial_paired_import_keeps_every_trial_pair(tau: Path) -> None:
    out = tau / "rejudged"
    done = cli(
        "rejudge",
        str(tau / "base"),
        "--judge-model",
        "judge-strict",
        "--out",
        str(out),
        "--events",
        "jsonl",
    )
    assert done.returncode == 0, done.stderr
    source = _pairs(tau / "base")
    assert len(source) == 9 and len({(t, a, b) for t, a, b, _, _ in source}) == 9
    assert _pairs(out) == source, "the same trial pairs, with the same success labels"
    result = json.loads(cli("compare", str(tau / "base"), str(out), "--format", "json").stdout)
    assert result["paired"] and "re-judges" in result["pairing"]["basis"]
    assert result["pairing"]["matched"] == 9 and result["pairing"]["success_labels_differ"] == 0
    assert result["pairing"]["decisive"] == sum(1 for *_, a, b in source if a != b)
    assert result["gate"] is not None, "gated: the three-way verdict is there"


def test_two_runs_over_one_imported_file_compare_paired(tau: Path) -> None:
    result = json.loads(
        cli("compare", str(tau / "base"), str(tau / "strict"), "--format", "json").stdout
    )
    assert result["paired"], "the same conversations, judged twice"
    assert result["pairing"]["basis"].startswith("both judged the same stored conversations")
    assert result["pairing"]["matched"] == 9 and result["pairing"]["only_in_a"] == 0
    gated = cli("compare", str(tau / "base"), str(tau / "strict"), "--fail-on-rise")
    assert gated.returncode == 5, "six decisive pairs cannot rule out a 2-point rise"
    assert "overall (so the gate cannot pass)" in gated.stdout

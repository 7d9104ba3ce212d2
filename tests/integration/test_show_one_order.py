"""`show` of a pair recorded in one order and without scores says so in words: it printed
Python's ``None`` (`(AB: tie, BA: None); scores None/None`, a new user, twenty-ninth session)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import cli

SPEC = '[run]\nname = "one"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'


def test_a_pair_judged_in_one_order_without_scores_reads_in_words(tmp_path: Path) -> None:
    lines = [
        {"pair_id": "p1", "task_id": "refund", "trial": 0, "agent_a": "v1", "agent_b": "v2",
         "success_a": 1, "success_b": 0},
        {"pair_id": "p1", "order": "AB", "winner": "tie"},
        {"pair_id": "p2", "task_id": "refund", "trial": 1, "agent_a": "v1", "agent_b": "v2",
         "success_a": 1, "success_b": 0},
        {"pair_id": "p2", "order": "AB", "winner": "A", "score_a": 4},
        {"pair_id": "p2", "order": "BA", "winner": "A", "score_a": 3},
    ]  # fmt: skip
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    imported = cli("import", "recorded-jsonl", str(tmp_path / "log.jsonl"), "--out",
                   str(tmp_path / "pairs.jsonl"))  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")
    out = tmp_path / "out"
    assert cli("run", str(tmp_path / "spec.toml"), "--out", str(out)).returncode == 0
    shown = cli("show", str(out), "p1")
    assert shown.returncode == 0, shown.stderr
    assert "prefers tie (AB: tie, BA: not judged); no scores" in shown.stdout
    both = cli("show", str(out), "p2")
    assert both.returncode == 0, both.stderr
    assert "(AB: A, BA: A); scores 3.5/none" in both.stdout
    assert "None" not in shown.stdout + both.stdout

"""`import openai-jsonl` says what `import recorded-jsonl` says of the verdicts it keeps: how many
have ``"winner": null`` (no verdict) and each whose winner contradicts its own scores, at its
own line (it said neither: a log's contradictions went unseen on this path)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli_helpers import cli_ok


def _trajectory(task: str, agent: str, success: bool) -> dict[str, Any]:
    messages = [
        {"role": "user", "content": f"please do {task}"},
        {"role": "assistant", "content": f"{agent} did {task}"},
    ]
    return {"task_id": task, "agent": agent, "trial": 0, "messages": messages, "success": success}


def _verdict(
    task: str, a: str, b: str, order: str, winner: str | None, **scores: float
) -> dict[str, Any]:
    return {"type": "verdict", "task_id": task, "agent_a": a, "agent_b": b, "order": order,
            "winner": winner, **scores}  # fmt: skip


def test_openai_jsonl_counts_null_winners_and_names_contradictions(tmp_path: Path) -> None:
    lines = [
        _trajectory("t1", "x", True),
        _trajectory("t1", "y", False),
        _trajectory("t2", "x", False),
        _trajectory("t2", "y", True),
        _verdict("t1", "x", "y", "AB", "A", score_a=2.0, score_b=3.5),  # line 5: contradicts
        _verdict("t1", "x", "y", "BA", None),  # line 6: no verdict
        _verdict("t2", "x", "y", "AB", "B", score_a=1.0, score_b=4.0),
        _verdict("t2", "y", "x", "AB", "A", score_a=4.0, score_b=1.0),  # (y, x): mirrored, agrees
    ]
    source = tmp_path / "rollouts.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    done = cli_ok("import", "openai-jsonl", str(source), "--out", str(tmp_path / "pairs.jsonl"))
    assert "4 recorded verdicts (1 with winner null: no verdict)" in done.stdout, done.stdout
    err = done.stderr.splitlines()
    assert "1 verdict(s) whose winner contradicts its own scores, kept as recorded" in err[0], err
    assert err[1:] == [f"  {source}:5: winner A but score_a 2 < score_b 3.5"], err

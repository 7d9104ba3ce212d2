"""Imported trajectories (τ-bench, OpenAI JSONL, recorded verdicts) get the same style features
as live runs, read from what the import stored; `show` lists them side by side and the report's
style section says in one line why a small import has no model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.analysis.frame import open_db, resolve_run
from judgeaudit.analysis.pair_detail import pair_detail, render_detail
from judgeaudit.analysis.report import build_report, render
from judgeaudit.analysis.why_data import load_run
from judgeaudit.cli import main

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
JUDGED = (
    '[run]\nname = "imp"\nimported = "pairs.jsonl"\njudge_view = "evidence"\n'
    '[endpoints.sim]\nbase_url = "embedded"\n[judge]\nmodel = "judge-default"\nendpoint = "sim"\n'
)
RECORDED = (
    '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[gap]\nsource = "judge"\n'
    '[judge]\nsource = "recorded"\n'
)
IMPORTS = {
    "tau-bench": (
        [
            "tau-bench",
            str(ROLLOUTS / "tau-bench-gpt-4o.json"),
            str(ROLLOUTS / "tau-bench-small-model.json"),
            "--agent",
            "gpt-4o",
            "--agent",
            "small-model",
        ],
        JUDGED,
    ),
    "openai-jsonl": (["openai-jsonl", str(ROLLOUTS / "openai-rollouts.jsonl")], JUDGED),
    "recorded-jsonl": (["recorded-jsonl", str(ROLLOUTS / "recorded-verdicts.jsonl")], RECORDED),
}


def audited(tmp: Path, kind: str) -> Path:
    args, spec = IMPORTS[kind]
    assert main(["import", *args, "--out", str(tmp / "pairs.jsonl")]) == 0
    (tmp / "spec.toml").write_text(spec, encoding="utf-8")
    assert main(["run", str(tmp / "spec.toml"), "--out", str(tmp / "out")]) == 0
    return tmp / "out"


@pytest.mark.parametrize("kind", sorted(IMPORTS))
def test_every_import_format_gets_features_for_every_judged_side(tmp_path: Path, kind: str) -> None:
    out = audited(tmp_path, kind)
    db = open_db(out)
    try:
        data = load_run(db, resolve_run(db, None))
        stored = db.execute("SELECT COUNT(*) FROM trajectories").fetchone()[0]
    finally:
        db.close()
    sides = data.side_features()
    assert stored > 0 and len(sides) == data.stored == stored
    assert len(data.orders)  # every judged order of a pair with both sides stored is a model row
    said = [f for f in sides if f.length > 0]
    assert said and all(f.turns >= 1 for f in said)
    assert any(f.claimed_done for f in sides)
    report = build_report(out)
    style = report["style"]
    assert style["status"] in ("ok", "skipped")
    if style["status"] == "skipped":
        assert "\n" not in style["note"] and style["note"].startswith("style attribution:")
    assert "what moves this judge" in render(report, "table")
    json.loads(render(report, "json"))


def test_openai_features_read_the_confirmation_the_ids_and_the_claim(tmp_path: Path) -> None:
    out = audited(tmp_path, "openai-jsonl")
    db = open_db(out)
    try:
        pair_id = db.execute(
            "SELECT pair_id FROM audit_pairs WHERE task_id = 'retail-0' AND agent_a = 'gpt-4o'"
            " ORDER BY pair_id LIMIT 1"
        ).fetchone()[0]
    finally:
        db.close()
    detail = pair_detail(out, pair_id)
    a = detail["features"][0]
    # "Can I refund the mug (#W1001) ...? Please confirm." then "Done: your refund of $12.50 ..."
    assert (a["asks_confirmation"], a["cites_ids"], a["claimed_done"]) == (1, 1, 1)
    assert a["tool_calls"] == 3 and a["turns"] == 2
    text = render_detail(detail)
    assert "features (docs/why.md)" in text and "asks_confirmation" in text

"""`judgeaudit import` on fixtures in each format, then real audits of what it wrote."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from judgeaudit.audit.units.transcript import render, with_context
from judgeaudit.cli import main

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
TAU = [ROLLOUTS / "tau-bench-gpt-4o.json", ROLLOUTS / "tau-bench-small-model.json"]
AGENTS = ["--agent", "gpt-4o", "--agent", "small-model"]


def rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def run(tmp: Path, spec: str, out: str = "out", *extra: str) -> int:
    (tmp / "spec.toml").write_text(spec, encoding="utf-8")
    return main(["run", str(tmp / "spec.toml"), "--out", str(tmp / out), *extra])


JUDGE_SPEC = """[run]
name = "tau"
imported = "pairs.jsonl"
judge_view = "evidence"
[endpoints.sim]
base_url = "embedded"
[judge]
model = "judge-default"
endpoint = "sim"
"""
RECORDED_SPEC = '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[gap]\nsource = "judge"\n[judge]\nsource = "recorded"\n'


@pytest.mark.parametrize(("pairing", "count"), [("agents", 6), ("trials", 6), ("both", 12)])
def test_tau_bench_pairing(tmp_path: Path, pairing: str, count: int) -> None:
    out = tmp_path / "pairs.jsonl"
    assert (
        main(
            [
                "import",
                "tau-bench",
                *map(str, TAU),
                *AGENTS,
                "--pairing",
                pairing,
                "--out",
                str(out),
            ]
        )
        == 0
    )
    got = rows(out)
    assert len(got) == count
    if pairing == "trials":
        assert all(r["agent_a"] == r["agent_b"] and r["trial_a"] != r["trial_b"] for r in got)
    else:
        assert {(r["agent_a"], r["agent_b"]) for r in got if "trial" in r} == {
            ("gpt-4o", "small-model")
        }


def test_tau_bench_survives_byte_for_byte_into_store_prompt_and_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = tmp_path / "pairs.jsonl"
    assert main(["import", "tau-bench", *map(str, TAU), *AGENTS, "--out", str(pairs)]) == 0
    printed = capsys.readouterr().out
    assert "read 12 trajectories" in printed and "paired 6" in printed
    first = rows(pairs)[0]
    events = first["trajectory_a"]
    assert isinstance(events, list)
    results = [e["result"] for e in events if e["role"] == "tool_result"]
    assert 25.0 in results and True in results  # a number and a boolean, not strings
    assert "Zoë's café mug ☕" in json.dumps(results, ensure_ascii=False)
    assert str(first["context"]).startswith("# Retail agent policy")  # the system prompt
    assert run(tmp_path, JUDGE_SPEC) == 0
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    stored, context = db.execute(
        "SELECT events, context FROM trajectories WHERE task_id = '0' AND agent = 'gpt-4o' AND trial = 0"
    ).fetchone()
    assert json.loads(stored) == events and "café mug ☕" in stored and "礼貌回答" in context
    assert db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0] == 6
    # What the judge is shown: the numeric result verbatim, the policy as task context.
    prompt = with_context("goal", context, "en") + "\n" + render(events, True)
    assert "tool_result: 25.0" in prompt and "tool_result: true" in prompt and "礼貌回答" in prompt
    report = tmp_path / "report.json"
    assert main(["report", str(tmp_path / "out"), "--format", "json", "--output", str(report)]) == 0
    assert {t["task_type"] for t in json.loads(report.read_text())["by_task_type"]} == {"tau-bench"}


def test_tau2_bench_skips_unfinished_and_names_agents_from_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [ROLLOUTS / "tau2-gpt-4o.json", ROLLOUTS / "tau2-small-model.json"]
    out = tmp_path / "pairs.jsonl"
    assert main(["import", "tau2-bench", *map(str, files), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "skipped 2" in err and "termination_reason too_many_errors" in err
    got = rows(out)
    assert {(r["agent_a"], r["agent_b"]) for r in got} == {("gpt-4o", "small-model")}
    assert all(
        r["task_type"] == "retail" and "Retail agent policy" in str(r["context"]) for r in got
    )


def test_rerun_after_editing_the_import_file_is_a_new_spec(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    assert (
        main(
            ["import", "openai-jsonl", str(ROLLOUTS / "openai-rollouts.jsonl"), "--out", str(pairs)]
        )
        == 0
    )
    assert run(tmp_path, RECORDED_SPEC) == 0
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    # The second verdict of each pair was recorded for (small-model, gpt-4o): mapped onto the
    # pair as its BA order, it agrees with the first, so every pair is swap-consistent.
    prefs = dict(db.execute("SELECT task_id || '/' || trial, judge_pref FROM audit_pairs"))
    assert prefs == {f"retail-{t}/{n}": "B" if t == 0 else "A" for t in range(3) for n in range(2)}
    assert db.execute("SELECT MIN(consistent), COUNT(*) FROM audit_pairs").fetchone() == (1, 6)
    db.close()
    edited = rows(pairs)
    edited[0]["success_a"] = 1 - int(str(edited[0]["success_a"]))
    pairs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in edited))
    assert run(tmp_path, RECORDED_SPEC) == 2  # refused: a different spec on the same OUT
    assert run(tmp_path, RECORDED_SPEC, "out", "--new-run") == 0
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    run_a, run_b = (r[0] for r in db.execute("SELECT run_id FROM runs ORDER BY created_at, run_id"))
    from judgeaudit.analysis.drift import compare

    result = compare(tmp_path / "out", tmp_path / "out", run_a, run_b)
    # A success label edited is not a new task set (twentieth session: compare reads the tasks'
    # own hash, not the file's); the pairing names what differs instead.
    keys = [c["key"] for c in result["manifest_changes"]]
    assert not any(k.startswith("task_set.") for k in keys), keys
    assert "success labels differ in 1" in result["unpaired_because"], result["unpaired_because"]


def test_recorded_verdicts_make_no_call_and_match_the_original_snippet(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    assert (
        main(
            [
                "import",
                "recorded-jsonl",
                str(ROLLOUTS / "recorded-verdicts.jsonl"),
                "--out",
                str(pairs),
            ]
        )
        == 0
    )
    assert run(tmp_path, RECORDED_SPEC) == 0
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    assert db.execute("SELECT COUNT(*) FROM calls").fetchone()[0] == 0  # not one model call
    assert db.execute("SELECT COUNT(*) FROM judge_logs").fetchone()[0] == 80
    # The same verdicts through the original pandas snippet, computed here independently.
    frame = pd.DataFrame(rows(pairs))

    def prefs(verdicts: list[dict[str, object]]) -> pd.Series:
        by = {v["order"]: v for v in verdicts}
        pref = by["AB"]["winner"] if by["AB"]["winner"] == by["BA"]["winner"] else "tie"
        sa = sum(float(str(v["score_a"])) for v in verdicts) / 2
        sb = sum(float(str(v["score_b"])) for v in verdicts) / 2
        return pd.Series({"judge_pref": pref, "reward_gap": abs(sa - sb)})

    frame = frame.join(frame["verdicts"].apply(prefs))
    frame["misselected"] = (
        ((frame.success_a == 1) & (frame.success_b == 0) & (frame.judge_pref == "B"))
        | ((frame.success_a == 0) & (frame.success_b == 1) & (frame.judge_pref == "A"))
    ).astype(int)
    frame["gap_bucket"] = pd.cut(
        frame["reward_gap"],
        bins=[-0.01, 0.2, 0.5, 1.0, 5.0],
        labels=["近同", "小差", "中差", "大差"],
    )
    snippet = frame.groupby("gap_bucket", observed=False)["misselected"].agg(["count", "sum"])
    decisive = frame[frame.success_a != frame.success_b]
    rates = decisive.groupby("gap_bucket", observed=False)["misselected"].mean()
    out = tmp_path / "report.json"
    assert main(["report", str(tmp_path / "out"), "--format", "json", "--output", str(out)]) == 0
    report = json.loads(out.read_text())
    for bucket in report["buckets"]:
        label = bucket["label"]
        assert bucket["pairs"] == snippet.loc[label, "count"]
        assert bucket["misselected"] == snippet.loc[label, "sum"]
        expected = rates.loc[label]
        assert (bucket["rate"] is None and pd.isna(expected)) or bucket["rate"] == pytest.approx(
            expected
        )

"""End-to-end audits on the real embedded server: contracts, swap mapping, faults, imports."""

from __future__ import annotations

import asyncio
import csv
import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from judgeaudit.audit import events as ev
from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.run_choice import RunError
from judgeaudit.audit.runner import AuditRunner
from tests.audit_helpers import write_spec

SEED_PAIR_COLUMNS = [
    "pair_id",
    "task_id",
    "agent_a",
    "agent_b",
    "success_a",
    "success_b",
    "judge_pref",
    "judge_score_a",
    "judge_score_b",
    "reward_gap",
    "misselected",
    "created_at",
]
SEED_LOG_FIELDS = [
    "log_id",
    "pair_id",
    "role",
    "model",
    "prompt_hash",
    "raw_output",
    "parsed_json",
    "created_at",
]


def run_audit(
    spec_path: Path, out: Path, *, new_run: bool = False
) -> tuple[ev.RunFinished, list[ev.Event]]:
    events: list[ev.Event] = []
    runner = AuditRunner(load_spec(spec_path), out, on_event=events.append, new_run=new_run)
    return asyncio.run(runner.run()), events


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("audit")
    spec = write_spec(out / "spec.toml")
    finished, _ = run_audit(spec, out / "out")
    assert finished.complete
    return out / "out"


def test_audit_pairs_contract(audited: Path) -> None:
    db = sqlite3.connect(audited / "audit.db")
    columns = [r[1] for r in db.execute("PRAGMA table_info(audit_pairs)")]
    assert columns[: len(SEED_PAIR_COLUMNS)] == SEED_PAIR_COLUMNS
    # WAL while the run writes; one self-contained file once its store is closed
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    count = db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0]
    assert count == 42 * 3  # 42 built-in tasks x 3 agent pairs
    with (audited / "audit_pairs.csv").open() as handle:
        header = next(csv.reader(handle))
    assert header[: len(SEED_PAIR_COLUMNS)] == SEED_PAIR_COLUMNS
    # The original analysis snippet keeps working on the CSV.
    pairs = pd.read_csv(audited / "audit_pairs.csv")
    pairs["gap_bucket"] = pd.cut(
        pairs["reward_gap"],
        bins=[-0.01, 0.2, 0.5, 1.0, 5.0],
        labels=["近同", "小差", "中差", "大差"],
    )
    stats = pairs.groupby("gap_bucket", observed=True)["misselected"].agg(["mean", "count", "sum"])
    assert stats["count"].sum() == count


def test_misselected_recomputed_from_inputs(audited: Path) -> None:
    pairs = pd.read_csv(audited / "audit_pairs.csv")
    success_a, success_b = pairs.success_a.astype(bool), pairs.success_b.astype(bool)
    a_won, b_won = success_a & ~success_b, success_b & ~success_a
    expected = (a_won & (pairs.judge_pref == "B")) | (b_won & (pairs.judge_pref == "A"))
    assert (pairs.misselected == expected.astype(int)).all()
    assert pairs.misselected.sum() > 0, "the default judge misselects some decisive pairs"
    gap = (pairs.capability_a - pairs.capability_b).abs().round(6)
    assert (pairs.reward_gap.round(6) == gap).all()


def test_swap_mapping_and_tie_rule(audited: Path) -> None:
    db = sqlite3.connect(audited / "audit.db")
    db.row_factory = sqlite3.Row
    flip = {"A": "B", "B": "A", "tie": "tie"}
    for pair in db.execute("SELECT * FROM audit_pairs"):
        final = {}
        for log in db.execute(
            "SELECT * FROM judge_logs WHERE pair_id = ? AND parsed_json IS NOT NULL",
            (pair["pair_id"],),
        ):
            final[log["order"]] = json.loads(log["parsed_json"])["winner"]
        if "AB" in final:
            assert pair["pref_ab"] == final["AB"]
        if "BA" in final:
            assert pair["pref_ba"] == flip[final["BA"]]  # shown as A in BA order = agent_b
        expected = pair["pref_ab"] if pair["pref_ab"] == pair["pref_ba"] else "tie"
        assert pair["judge_pref"] == expected


def test_judge_logs_jsonl_matches_table(audited: Path) -> None:
    lines = (audited / "judge_logs.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    for field in SEED_LOG_FIELDS:
        assert all(field in row for row in rows)
    ids = [r["log_id"] for r in rows]
    assert len(ids) == len(set(ids))
    db = sqlite3.connect(audited / "audit.db")
    assert len(ids) == db.execute("SELECT COUNT(*) FROM judge_logs").fetchone()[0]
    assert all(r["role"] == "judge" and r["order"] in ("AB", "BA") for r in rows)
    manifest = json.loads((audited / "manifest.json").read_text())
    assert manifest["task_set"]["count"] == 42
    assert set(manifest["prompts"]["hashes"]) == {
        "judge",
        "user_simulator",
        "success_check",
        "agent_system",
    }
    assert manifest["prompts"]["templates"]["judge"]["source"] == "builtin:judge.en.toml"


def test_malformed_judge_output_is_logged_retried_and_never_crashes(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.toml", judge="judge-default:malformed=0.6")
    finished, _ = run_audit(spec, tmp_path / "out")
    assert finished.complete
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    errors = db.execute(
        "SELECT raw_output, parse_error FROM judge_logs WHERE parse_error IS NOT NULL"
    ).fetchall()
    assert errors, "a 60% malformed rate must produce unparsable outputs"
    assert all(raw for raw, _ in errors), "raw output is kept verbatim"
    retried = db.execute("SELECT COUNT(*) FROM judge_logs WHERE attempt > 0").fetchone()[0]
    assert retried > 0
    fenced = db.execute(
        "SELECT COUNT(*) FROM judge_logs WHERE raw_output LIKE '```%' AND parse_error IS NULL"
    ).fetchone()[0]
    assert fenced > 0, "code-fenced JSON parses without a retry"


def test_run_completes_under_fault_injection(tmp_path: Path, transport: str) -> None:
    faults = "rate_429=0.05,rate_500=0.05,rate_503=0.03,rate_truncate=0.03,retry_after_s=0.01"
    spec = write_spec(
        tmp_path / "spec.toml",
        ace=f"agent-ace:{faults}",
        weak=f"agent-weak:{faults}",
        pro=f"agent-pro:{faults}",
        user=f"user-default:{faults}",
        judge=f"judge-default:{faults},malformed=0.1",
    )
    fast_path = "true" if transport == "direct" else "false"
    text = spec.read_text().replace(
        'base_url = "embedded"', f'base_url = "embedded"\nfast_path = {fast_path}'
    )
    spec.write_text(text)
    events: list[ev.Event] = []
    runner = AuditRunner(load_spec(spec), tmp_path / "out", on_event=events.append)
    finished = asyncio.run(runner.run())
    assert finished.complete
    assert runner.endpoints is not None and runner.endpoints.clients["sim"].path == transport
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    assert db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0] == 126
    assert db.execute("SELECT SUM(attempts) - COUNT(*) FROM calls").fetchone()[0] > 0, (
        "retries happened"
    )
    assert not [e for e in events if type(e).__name__ == "UnitFailed"]


def test_judge_only_on_imported_trajectories(tmp_path: Path) -> None:
    rows = [
        {
            "task_id": f"t{i}",
            "task": "Refund item SKU-101 in order O-1001.",
            "task_type": "refund",
            "agent_a": "x",
            "agent_b": "y",
            "trajectory_a": [
                {"role": "user", "content": "I'd like a refund for item SKU-101 in order O-1001."},
                {
                    "role": "agent",
                    "content": "The refund for item SKU-101 in order O-1001 has been issued: $12.00 (refund id R-1).",
                },
            ],
            "trajectory_b": "user: I'd like a refund for item SKU-101 in order O-1001.\nagent: All done: your request has been processed!",
            "success_a": 1,
            "success_b": i % 2,
            "reward_a": 0.9,
            "reward_b": 0.1 * i,
        }
        for i in range(6)
    ]
    (tmp_path / "pairs.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (tmp_path / "spec.toml").write_text(
        '[run]\nname = "imp"\nimported = "pairs.jsonl"\n[gap]\nsource = "external"\n'
        '[endpoints.sim]\nbase_url = "embedded"\n[judge]\nmodel = "judge-strict"\nendpoint = "sim"\n'
    )
    finished, _ = run_audit(tmp_path / "spec.toml", tmp_path / "out")
    assert finished.complete
    pairs = pd.read_csv(tmp_path / "out" / "audit_pairs.csv")
    assert len(pairs) == 6 and (pairs.success_source == "import").all()
    index = pairs.task_id.str[1:].astype(int)
    assert (pairs.reward_gap.round(6) == (0.9 - 0.1 * index).abs().round(6)).all()
    # The strict judge prefers the trajectory with concrete evidence of the refund.
    decisive = pairs[pairs.success_b == 0]
    assert (decisive.judge_pref == "A").all() and decisive.misselected.sum() == 0


def test_changed_spec_on_existing_dir_is_refused(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    from judgeaudit.audit.tasks import builtin_retail

    (tmp_path / "tasks.jsonl").write_text(
        json.dumps(
            {
                **builtin_retail()[0].to_json(),
                "instruction": builtin_retail()[0].instruction,
                "initial_state": builtin_retail()[0].initial_state,
                "expected_state": builtin_retail()[0].expected_state,
            }
        )
        + "\n"
    )
    run_audit(spec, tmp_path / "out")
    write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl", seed=99)
    with pytest.raises(RunError, match=r"different spec.*--new-run"):
        run_audit(tmp_path / "spec.toml", tmp_path / "out")
    finished, _ = run_audit(tmp_path / "spec.toml", tmp_path / "out", new_run=True)
    assert finished.complete and finished.run_id.startswith("t-")
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 2


def test_llm_success_check_is_only_a_candidate_and_costs_are_counted(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.toml")
    text = spec.read_text().replace(
        'base_url = "embedded"', 'base_url = "embedded"\nprice_in = 2.0\nprice_out = 8.0'
    )
    spec.write_text(text + '\n[success_check]\nmodel = "judge-strict"\nendpoint = "sim"\n')
    finished, events = run_audit(spec, tmp_path / "out")
    assert finished.complete
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    sources = {r[0] for r in db.execute("SELECT DISTINCT success_source FROM trajectories")}
    assert sources == {"state"}, "the LLM label never replaces the state check"
    labelled = db.execute(
        "SELECT COUNT(*) FROM trajectories WHERE llm_success IS NOT NULL"
    ).fetchone()[0]
    flagged = db.execute(
        "SELECT COUNT(*) FROM trajectories WHERE needs_review = 1 AND llm_success != success"
    ).fetchone()[0]
    disagreeing = db.execute(
        "SELECT COUNT(*) FROM trajectories WHERE llm_success != success"
    ).fetchone()[0]
    assert labelled == 42 * 3 and flagged == disagreeing
    tokens_in, tokens_out, cost = db.execute(
        "SELECT SUM(prompt_tokens), SUM(completion_tokens), SUM(cost_usd) FROM calls"
    ).fetchone()
    assert cost == pytest.approx((tokens_in * 2.0 + tokens_out * 8.0) / 1e6)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["usage"]["cost_usd"] == pytest.approx(cost)
    progress = [e for e in events if isinstance(e, ev.Progress)]
    assert progress[-1].cost_usd > 0


def test_conversation_failing_for_good_leaves_run_incomplete_then_rerun_completes(
    tmp_path: Path,
) -> None:
    from judgeaudit.llm.client import RetryPolicy

    spec = write_spec(tmp_path / "spec.toml", weak="agent-weak:rate_500=0.6")
    runner = AuditRunner(load_spec(spec), tmp_path / "out")
    original = runner._endpoints

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def tight():  # type: ignore[no-untyped-def]
        async with original() as endpoints:
            for client in endpoints.clients.values():
                client.retry = RetryPolicy(max_attempts=1, base_s=0.0, max_s=0.0)
            yield endpoints

    runner._endpoints = tight  # type: ignore[method-assign]
    events: list[ev.Event] = []
    runner.emit = events.append
    first = asyncio.run(runner.run())
    assert not first.complete
    assert any(type(e).__name__ == "UnitFailed" for e in events)
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    assert db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0] == 0, (
        "no pairs from partial rates"
    )
    assert db.execute("SELECT status FROM runs").fetchone()[0] == "incomplete"
    second, _ = run_audit(spec, tmp_path / "out")
    assert second.complete
    assert db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0] == 126


def test_pairs_with_both_orders_unparsable_are_not_swap_consistent(tmp_path: Path) -> None:
    from tests.audit_helpers import write_tasks

    write_tasks(tmp_path / "tasks.jsonl", 12)
    spec = write_spec(
        tmp_path / "spec.toml", tasks="tasks.jsonl", judge="judge-default:malformed=1"
    )
    spec.write_text(spec.read_text().replace("judge_retries = 2", "judge_retries = 0"))
    finished, _ = run_audit(spec, tmp_path / "out")
    assert finished.complete
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    failed_both = db.execute(
        "SELECT p.consistent FROM audit_pairs p WHERE 2 = (SELECT COUNT(*) FROM judge_logs l"
        " WHERE l.pair_id = p.pair_id AND l.parse_error IS NOT NULL)"
    ).fetchall()
    assert failed_both, "a judge that always malforms leaves some pairs with no verdict at all"
    assert all(consistent == 0 for (consistent,) in failed_both)
    from judgeaudit.analysis.report import build_report

    bias = build_report(tmp_path / "out")["position_bias"][0]
    agreeing = db.execute("SELECT COUNT(*) FROM audit_pairs WHERE consistent = 1").fetchone()[0]
    assert bias["consistent"] == agreeing

"""``run --dry-run`` and ``rejudge --dry-run``: the plan, before any call; nothing written."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.audit.dryrun import estimate_tokens
from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.toml"


def plan_of(*args: str) -> dict[str, Any]:  # parsed JSON
    done = cli(*args, "--dry-run", "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    # a re-judge's dry run adds a gate_power event after the plan
    assert [e["event"] for e in events][1:] in ([], ["gate_power"])
    data: dict[str, Any] = events[0]
    assert data.pop("event") == "dry_run" and data["written"] is False
    return data


def roles(plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    rows = plan["roles"]
    assert isinstance(rows, list)
    return {f"{r['role']}:{r['model']}": r for r in rows}


def test_demo_dry_run_counts_units_and_calls_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    text = cli("run", str(DEMO), "--dry-run", "--out", str(out))
    assert text.returncode == 0, text.stderr
    assert "nothing is called or written" in text.stdout and not out.exists()
    plan = plan_of("run", str(DEMO), "--out", str(out))
    assert not out.exists()
    # 42 tasks x 6 agents x 2 trials; 15 agent pairs x 42 tasks x 2 trials; both orders.
    assert (plan["conversations"], plan["pairs"], plan["orders"]) == (504, 1260, 2)
    by_role = roles(plan)
    judge = by_role["judge:judge-default"]
    assert judge["calls_min"] == 2520 and judge["calls_max"] == 2520 * 3
    user = by_role["user:user-default"]
    assert (user["calls_min"], user["calls_max"]) == (504, 504 * 8)
    assert by_role["agent:agent-ace"]["calls_min"] == 84
    assert all(r["cost_min_usd"] is None for r in by_role.values()), "no prices declared"


def test_prices_give_a_cost_and_a_stored_run_is_not_counted_again(tmp_path: Path) -> None:
    write_tasks(tmp_path / "tasks.jsonl", 6)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    spec.write_text(
        spec.read_text().replace(
            'base_url = "embedded"', 'base_url = "embedded"\nprice_in = 2.0\nprice_out = 8.0'
        )
    )
    plan = plan_of("run", str(spec))
    judge = roles(plan)["judge:judge-default"]
    assert judge["cost_min_usd"] == pytest.approx(judge["prompt_tokens_min"] * 2.0 / 1e6)
    out = tmp_path / "out"
    assert cli("run", str(spec), "--out", str(out), "--events", "jsonl").returncode == 0
    before = sorted(p.name for p in out.iterdir())
    again = plan_of("run", str(spec), "--out", str(out))
    assert again["pairs_stored"] == again["pairs"] == 18
    assert roles(again)["judge:judge-default"]["calls_min"] == 0
    assert sorted(p.name for p in out.iterdir()) == before


def test_rejudge_dry_run_renders_the_stored_transcripts(tmp_path: Path) -> None:
    write_tasks(tmp_path / "tasks.jsonl", 6)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    base = tmp_path / "base"
    assert cli("run", str(spec), "--out", str(base), "--events", "jsonl").returncode == 0
    plan = plan_of(
        "rejudge", str(base), "--judge-model", "judge-strict", "--out", str(tmp_path / "o")
    )
    assert not (tmp_path / "o").exists()
    assert plan["kind"] == "re-judge" and plan["pairs"] == 18
    (judge,) = plan["roles"]
    assert judge["calls_min"] == 36 and judge["basis"] == "rendered judge prompts"
    assert judge["completion_tokens_per_call"] is not None, "measured in the source run"
    db = sqlite3.connect(base / "audit.db")
    sent = [
        sum(estimate_tokens(m["content"]) for m in json.loads(row[0]))
        for row in db.execute(
            "SELECT p.messages_json FROM judge_logs l JOIN prompts p USING (prompt_hash)"
            " WHERE l.attempt = 0 AND l.\"order\" = 'AB'"
        )
    ]
    actual = sum(sent) / len(sent)
    assert judge["prompt_tokens_per_call"] == pytest.approx(actual, rel=0.1)


def test_run_without_out_or_dry_run_is_refused(tmp_path: Path) -> None:
    done = cli("run", str(DEMO))
    assert done.returncode == 2 and "--out DIR is required" in done.stderr


def test_dry_run_names_each_judge_whole_and_refuses_what_the_run_refuses(tmp_path: Path) -> None:
    """Two weaker judges were both listed as 'judge-default:diligence' (the id cut at 23
    characters), and ``--concurrency 0`` passed as a plan although the run refuses it."""
    write_tasks(tmp_path / "tasks.jsonl", 6)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    base = tmp_path / "base"
    assert cli("run", str(spec), "--out", str(base), "--events", "jsonl").returncode == 0
    weak = [
        "judge-default:diligence=0,evidence=0.3,style=0.7",
        "judge-default:diligence=0,evidence=0.2,style=0.8",
    ]
    rejudge = ["rejudge", str(base), "--out", str(tmp_path / "o")]
    text = cli(*rejudge, "--judge-model", weak[0], "--judge-model", weak[1], "--dry-run")
    assert text.returncode == 0, text.stderr
    rows = [line.split()[1] for line in text.stdout.splitlines() if line.startswith("  judge ")]
    assert rows == weak
    for command, bad in (
        (rejudge, "0"),
        (["run", str(spec), "--out", str(tmp_path / "p")], "2000"),
    ):
        done = cli(*command, "--concurrency", bad, "--dry-run")
        assert done.returncode == 2 and done.stdout == "", done.stdout
        assert done.stderr.strip() == (
            f"judgeaudit: --concurrency: {bad} is out of range; use 1 to 1024"
        )
    assert not (tmp_path / "o").exists() and not (tmp_path / "p").exists()


def test_dry_run_refuses_a_simulated_model_the_embedded_provider_refuses(tmp_path: Path) -> None:
    """``--judge-model judge-default:bogus=1`` passed as a plan; the run then stopped at its
    first judge call with the provider's 400. The plan now says what the run would."""
    write_tasks(tmp_path / "tasks.jsonl", 4)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    base = tmp_path / "base"
    assert cli("run", str(spec), "--out", str(base), "--events", "jsonl").returncode == 0
    for bad, why in (
        ("judge-default:bogus=1", "unknown parameter 'bogus'"),
        ("judge-default:diligence=abc", "diligence"),
        ("judge-default:diligence=5", "diligence"),
    ):
        done = cli(
            "rejudge", str(base), "--out", str(tmp_path / "o"), "--judge-model", bad, "--dry-run"
        )
        assert done.returncode == 2 and done.stdout == "", done.stdout
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("judgeaudit: judge on the embedded provider")
        assert why in lines[0] and bad in lines[0]
    assert not (tmp_path / "o").exists()
    fine = cli(
        "rejudge",
        str(base),
        "--out",
        str(tmp_path / "o"),
        "--judge-model",
        "judge-default:diligence=0.5",
        "--dry-run",
    )
    assert fine.returncode == 0, fine.stderr


def test_dry_run_says_conversations_are_held_and_warns_as_the_run_does(tmp_path: Path) -> None:
    """A new user read "dry run of taotoken (simulated)" on a real gateway as "a simulated
    provider"; and the run's same-source-bias warning was missing from its dry run."""
    write_tasks(tmp_path / "tasks.jsonl", 2)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl", judge="user-default")
    spec.write_text(spec.read_text().replace("temperature = 0.7", "temperature = 0.0"))
    dry = cli("run", str(spec), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    headline = dry.stdout.splitlines()[0]
    assert "(simulated)" not in headline and "with the user simulator" in headline, headline
    run = cli("run", str(spec), "--out", str(tmp_path / "out"), "--events", "progress")
    assert run.returncode == 0, run.stderr
    warned = [line.strip() for line in run.stderr.splitlines() if "same-source bias" in line]
    assert len(warned) == 1 and warned[0] in dry.stdout.splitlines(), (warned, dry.stdout)
    assert plan_of("run", str(spec))["warnings"] == [warned[0].removeprefix("warning: ")]

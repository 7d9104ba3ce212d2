"""Gap definitions that would invert the claim are refused with one line naming the source
that fits (exit 2, nothing written): `external` on 0/1 rewards buckets by the outcome itself,
`capability` on two trials of one agent is 0 by construction."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import cli

SPEC = (
    '[run]\nname = "imp"\nimported = "pairs.jsonl"\n[gap]\nsource = "{source}"\n'
    '[endpoints.sim]\nbase_url = "embedded"\n[judge]\nmodel = "judge-default"\nendpoint = "sim"\n'
)


def _pairs(tmp: Path, one_agent: bool, source: str) -> Path:
    rows = [
        {
            "task_id": f"t{i}",
            "task": "Refund item SKU-101 in order O-1001.",
            "agent_a": "x",
            "agent_b": "x" if one_agent else "y",
            **({"trial_a": 0, "trial_b": 1} if one_agent else {}),
            "trajectory_a": "user: refund SKU-101 please\nagent: refund issued, id R-1",
            "trajectory_b": "user: refund SKU-101 please\nagent: all done!",
            "success_a": 1,
            "success_b": i % 2,
            "reward_a": 1.0,
            "reward_b": float(i % 2),
        }
        for i in range(6)
    ]
    (tmp / "pairs.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (tmp / "spec.toml").write_text(SPEC.format(source=source))
    return tmp / "spec.toml"


def test_external_gap_on_binary_rewards_is_refused(tmp_path: Path) -> None:
    spec = _pairs(tmp_path, one_agent=False, source="external")
    done = cli("run", str(spec), "--out", str(tmp_path / "out"), "--events", "jsonl")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert "rewards are 0/1" in line and "use capability" in line and "gap.source" in line
    assert not (tmp_path / "out" / "audit.db").exists()


def test_capability_gap_on_one_agent_is_refused_at_run_and_report(tmp_path: Path) -> None:
    spec = _pairs(tmp_path, one_agent=True, source="capability")
    done = cli("run", str(spec), "--out", str(tmp_path / "out"), "--events", "jsonl")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert "0 by construction" in line and "use judge" in line
    # a run under a gap source that fits, then a report asking for the unfit ones
    spec.write_text(SPEC.format(source="judge"))
    out = tmp_path / "ok"
    assert cli("run", str(spec), "--out", str(out), "--events", "jsonl").returncode == 0
    for source, says in (("capability", "0 by construction"), ("external", "rewards are 0/1")):
        refused = cli("report", str(out), "--gap-source", source)
        assert refused.returncode == 2, refused.stderr
        (line,) = refused.stderr.strip().splitlines()
        assert line.count(says) == 1 and "use judge" in line


def test_external_gap_on_a_run_without_rewards_is_refused(tmp_path: Path) -> None:
    """Simulated conversations carry no reward: `report --gap-source external` printed every
    bucket n/a and exited 0 (a new user's trial); it is refused in one line naming the fits."""
    from tests.audit_helpers import write_spec, write_tasks

    write_tasks(tmp_path / "tasks.jsonl", 4)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    assert cli("run", str(spec), "--out", str(tmp_path / "out")).returncode == 0
    done = cli("report", str(tmp_path / "out"), "--gap-source", "external")
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.endswith(
        "--gap-source external: no pair has a reward (reward_a/reward_b are empty), so no pair"
        " has an external gap and every bucket would be empty; use capability (agents' success"
        " rates) or judge, or import pairs with rewards"
    )


def test_a_simulated_spec_with_an_external_gap_is_refused_before_it_runs(tmp_path: Path) -> None:
    """The refusal came only from the closing report, after every model call was paid for
    (exit 2, no report.html; the review of the change): the spec is refused at once."""
    from tests.audit_helpers import write_spec

    spec = write_spec(tmp_path / "spec.toml")
    spec.write_text(spec.read_text() + '\n[gap]\nsource = "external"\n', encoding="utf-8")
    done = cli("run", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert f"{spec}: gap.source = 'external': no pair has a reward" in line
    assert not (tmp_path / "out" / "audit.db").exists()

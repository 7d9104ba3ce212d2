"""New-user findings on `judgeaudit import` that are not refusals: what the summary says.

Run through the real CLI in a child process (``tests.cli_helpers.cli``), as a user would.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.badinput.import_cases import oa, tau, tau_file
from tests.cli_helpers import cli

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"


def test_partial_rewards_are_counted_in_the_summary(tmp_path: Path) -> None:
    """Finding 12: a reward of 0.5 is a failure (success = reward == 1), and the user is told."""
    results = tmp_path / "r.json"
    results.write_text(tau_file(tau(0), tau(0, trial=1, reward=0.5), tau(1), tau(1, trial=1)))
    done = cli("import", "tau-bench", str(results), "--out", str(tmp_path / "p.jsonl"))
    assert done.returncode == 0, done.stderr
    assert "1 reward neither 0 nor 1 counted as a failure" in done.stderr
    assert f"{results}: [1].reward = 0.5" in done.stderr
    pairs = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert {(p["success_a"], p["success_b"], p["reward_b"]) for p in pairs} >= {(1, 0, 0.5)}


def test_whole_rewards_print_no_note(tmp_path: Path) -> None:
    results = tmp_path / "r.json"
    results.write_text(tau_file(tau(0), tau(0, trial=1, reward=0.0)))
    done = cli("import", "tau-bench", str(results), "--out", str(tmp_path / "p.jsonl"))
    assert done.returncode == 0, done.stderr
    assert "reward" not in done.stderr


def test_tau_bench_error_records_are_skipped_with_their_error(tmp_path: Path) -> None:
    """τ-bench writes a crashed task as reward 0, ``info: {error, traceback}``, ``traj: []``:
    that is no trajectory of the agent, so it is skipped with the error, not judged as empty."""
    results = tmp_path / "r.json"
    crashed = tau(1, reward=0.0, traj=[], info={"error": "RateLimitError", "traceback": "..."})
    results.write_text(tau_file(tau(0), tau(0, trial=1), crashed))
    done = cli("import", "tau-bench", str(results), "--out", str(tmp_path / "p.jsonl"))
    assert done.returncode == 0, done.stderr
    assert "read 2 trajectories" in done.stdout
    assert f"{results}: [2]: τ-bench recorded an error (RateLimitError); not audited" in done.stderr


def test_recorded_import_counts_pairs_not_trajectories(tmp_path: Path) -> None:
    """Finding 23: 40 pairs are 40 pairs (80 trajectories), not '40 trajectories'."""
    done = cli(
        "import",
        "recorded-jsonl",
        str(ROLLOUTS / "recorded-verdicts.jsonl"),
        "--out",
        str(tmp_path / "p.jsonl"),
    )
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("read 40 pairs from 1 file(s)"), first
    assert "trajectories" not in first


def test_agent_flag_names_lines_without_an_agent(tmp_path: Path) -> None:
    """A line without ``agent`` is refused unless ``--agent`` names the file's agent."""
    rows = tmp_path / "r.jsonl"
    rows.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in (
                {k: v for k, v in oa().items() if k != "agent"},
                {k: v for k, v in oa(trial=1).items() if k != "agent"},
            )
        )
    )
    done = cli("import", "openai-jsonl", str(rows), "--agent", "mine", "--out", str(tmp_path / "p"))
    assert done.returncode == 0, done.stderr
    assert "agents: mine 2" in done.stdout


def test_not_json_hint_fits_a_json_file(tmp_path: Path) -> None:
    """Finding 23: τ-bench results are one JSON list, so 'one object per line' is the wrong hint."""
    results = tmp_path / "r.csv"
    results.write_text("task_id,reward\n0,1\n")
    done = cli("import", "tau-bench", str(results), "--out", str(tmp_path / "p.jsonl"))
    assert done.returncode == 2
    assert "per line" not in done.stderr
    assert "line 1 column 1" in done.stderr
    assert not (tmp_path / "p.jsonl").exists()


def test_a_task_text_taken_from_the_first_user_message_is_not_a_conflict(tmp_path: Path) -> None:
    """Without a ``task`` field the task text is derived (the first user message), and two
    agents' users rarely open with the same words: the first one seen names the task, and a
    declared ``task`` on another line wins over it; only two declared texts can conflict."""
    rows = tmp_path / "r.jsonl"
    opening = [{"role": "assistant", "content": "ok"}]
    lines = [
        {**oa(agent="x"), "messages": [{"role": "user", "content": "hi, refund"}, *opening]},
        {**oa(agent="y"), "messages": [{"role": "user", "content": "refund pls"}, *opening]},
        {**oa(agent="x", trial=1, task="Refund the mug.")},
        {**oa(agent="y", trial=1, task="Refund the mug.")},
    ]
    for line in lines[:2]:
        del line["task"]
    rows.write_text("".join(json.dumps(r) + "\n" for r in lines))
    out = tmp_path / "p.jsonl"
    done = cli("import", "openai-jsonl", str(rows), "--out", str(out))
    assert done.returncode == 0, done.stderr
    pairs = [json.loads(line) for line in out.read_text().splitlines()]
    assert [p["task"] for p in pairs] == ["Refund the mug.", "Refund the mug."]


def test_a_rollout_without_a_partner_is_skipped_in_plain_words(tmp_path: Path) -> None:
    results = tmp_path / "r.json"
    results.write_text(tau_file(tau(0), tau(0, trial=1), tau(1)))
    done = cli("import", "tau-bench", str(results), "--out", str(tmp_path / "p.jsonl"))
    assert done.returncode == 0, done.stderr
    assert f"{results}: [2]: task '1' trial 0: no other trial of this agent to pair with" in (
        done.stderr
    )


@pytest.mark.parametrize("twice", [False, True], ids=["bulk path", "exact path"])
def test_verdicts_without_a_pair_are_each_named_at_their_own_line(
    tmp_path: Path, twice: bool
) -> None:
    """Found by a new user: three verdicts whose pair_id has no pair line, on lines 121, 242 and
    363, were all reported at line 121 (the smallest ``file:line`` as text). ``twice``: a
    verdict line given twice at the end sends the import down its exact path."""
    records = [
        json.loads(line)
        for line in (ROLLOUTS / "recorded-verdicts.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip() and "p999" not in line  # the example's own verdict without a pair
    ]
    for i in range(130):  # more pairs, each with its verdict, to reach line 363
        records += [
            {"pair_id": f"f{i}", "task_id": f"fill-{i}", "agent_a": "a1", "agent_b": "a2",
             "success_a": 0, "success_b": 1},
            {"pair_id": f"f{i}", "order": "AB", "winner": "B"},
        ]  # fmt: skip
    for line in (121, 242, 363):
        records.insert(line - 1, {"pair_id": f"ghost-{line}", "order": "AB", "winner": "A"})
    if twice:
        records.append(records[-1])
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    done = cli("import", "recorded-jsonl", str(log), "--out", str(tmp_path / "p.jsonl"))
    assert done.returncode == 0, done.stderr
    named = [line.strip() for line in done.stderr.splitlines() if "has no pair line" in line]
    assert named == [
        f"{log}:{n}: verdict whose pair_id has no pair line" for n in (121, 242, 363)
    ], done.stderr

"""A run killed part-way (SIGKILL: it stays marked ``running``) is not ranked by ``judges`` nor
trended silently (found by a new user: a re-judge killed at 177 of 1260 pairs got full figures,
``vs best`` and the frontier ``*``; a trend of 3 inputs showed 2 periods and said nothing). Both
leave it out with the reason ``compare --fail-on-rise`` gives for refusing it, in the JSON and
in a line on stderr; ``judges`` given one directory twice says so."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli, cli_ok

# a killed run is "stopped", the word the app and `report` show (it read "running" here before)
WHY = "stopped, not finished; finish it (rerun the command that made it)"


def killed_after_first_pair(*args: str) -> None:
    """``judgeaudit ARGS --events jsonl`` killed with SIGKILL once it stored its first pair."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "judgeaudit", *args, "--events", "jsonl", "--concurrency", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if json.loads(line)["event"] == "pair_done":
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stdout.close()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("unfinished")
    write_tasks(folder / "tasks.jsonl", 6)
    spec = write_spec(folder / "spec.toml", tasks="tasks.jsonl")
    cli_ok("run", str(spec), "--out", str(folder / "a"), "--events", "jsonl")
    cli_ok("rejudge", "a", "--judge-model", "judge-strict", "--out", "b", cwd=folder)
    slow = "judge-flaky:latency_ms=1000"
    killed_after_first_pair("rejudge", str(folder / "a"), "--judge-model", slow, "--out",
                            str(folder / "killed"))  # fmt: skip
    cli_ok("run", str(spec), "--out", str(folder / "a2"), "--events", "jsonl")
    slow_spec = write_spec(folder / "slow.toml", tasks="tasks.jsonl", judge=slow)
    killed_after_first_pair("run", str(slow_spec), "--out", str(folder / "a3"))
    return folder


def test_judges_leaves_a_killed_rejudge_out_with_the_gates_reason(home: Path) -> None:
    done = cli_ok("judges", "a", "b", "killed", "--format", "json", cwd=home)
    board = json.loads(done.stdout)
    ranked = [row["run_id"] for row in board["judges"]]
    assert len(ranked) == 2
    (left,) = board["left_out"]
    assert left["out"] == "killed" and left["because"] == f"{WHY} before ranking it"
    assert left["finished"] is False
    assert left["run_id"] not in ranked
    assert f"judges: left out killed#{left['run_id']}, which is {WHY} before ranking it" in (
        done.stderr
    )
    gate = cli("compare", "a", "killed", "--fail-on-rise", cwd=home)  # the same words
    assert gate.returncode == 4 and f"is {WHY} before gating on it" in gate.stderr

    alone = cli("judges", "a", "killed", cwd=home)
    assert alone.returncode == 2
    assert "fewer than two runs judged the same" in alone.stderr and WHY in alone.stderr


def test_judges_given_one_directory_twice_says_so(home: Path) -> None:
    done = cli("judges", "a", "./a", cwd=home)
    assert done.returncode == 2
    assert "judges: the same output directory was given twice" in done.stderr


def test_trend_says_which_input_it_left_out_as_unfinished(home: Path) -> None:
    done = cli_ok("trend", "a", "a2", "a3", "--format", "json", cwd=home)
    trend = json.loads(done.stdout)
    assert [p["out"] for p in trend["periods"]] == ["a", "a2"]
    (left,) = trend["unfinished"]
    assert left["out"] == "a3" and left["because"] == WHY
    assert f"judgeaudit: trend: left out a3#{left['run_id']}, which is {WHY}" in done.stderr
    none = cli("trend", "a3", cwd=home)
    assert none.returncode == 2 and f"a3#{left['run_id']} is {WHY}" in none.stderr

"""A judge that stops deciding must not pass the gate (a new user's trial, nineteenth session).

A tie is never a misselection, so a judge answering "tie" to everything, or one so biased to
the first position that its two orders seldom agree, lowered misselection and passed
``compare --fail-on-rise`` with exit 0. The gate now also asks the tie-aware rate (a tie counts
half a loss) to be not worse, and calls its significant rise worse; a judge that is genuinely
not worse still passes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_helpers import RECORDED_SPEC, cli, recorded_run

SPEC = RECORDED_SPEC
#: (pair's success, the side that succeeded or None, order) -> winner in the pair's own terms
Winner = Callable[[random.Random, str, str], str]


def _good(rng: random.Random, right: str, order: str) -> str:
    """The new user's judge-good: right on 85% of orders."""
    return right if rng.random() < 0.85 else {"A": "B", "B": "A"}[right]


def _log(judge: str, winner: Winner, pairs: int = 600, tasks: int = 60) -> str:
    """The new user's gen.py at a fifth of its size: the same logged pairs for every judge
    (labels from seed 9), one verdict per order."""
    labels, rng = random.Random(9), random.Random(judge)
    lines: list[dict[str, object]] = []
    for i in range(pairs):
        task, pid = f"task-{i % tasks}", f"c{i:06d}"
        sa, sb = labels.random() < 0.6, labels.random() < 0.4
        right = "A" if sa and not sb else "B" if sb and not sa else labels.choice("AB")
        lines.append(
            {"type": "pair", "pair_id": pid, "task_id": task, "agent_a": "pa", "agent_b": "pb",
             "trial": i // tasks, "success_a": int(sa), "success_b": int(sb), "task": "do " + task}
        )  # fmt: skip
        for order in ("AB", "BA"):
            lines.append(
                {"type": "verdict", "pair_id": pid, "order": order,
                 "winner": winner(rng, right, order), "judge_model": judge}
            )  # fmt: skip
    return "".join(json.dumps(line) + "\n" for line in lines)


def _run(folder: Path, log_text: str) -> Path:
    return recorded_run(folder, log_text)


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(tmp_path_factory.mktemp("ties") / "good", _log("judge-good", _good))


def test_an_always_tie_judge_is_worse_on_the_tie_aware_rate(good: Path, tmp_path: Path) -> None:
    tie = _run(tmp_path / "tie", _log("judge-always-tie", lambda rng, right, order: "tie"))
    gated = cli("compare", str(good), str(tie), "--fail-on-rise")
    assert gated.returncode == 3, gated.stdout + gated.stderr
    assert "gate (margin 2 points): WORSE on the tie-aware rate: ties count half a loss" in (
        gated.stdout
    )
    assert "the tie-aware rate rose" in gated.stderr and "decides less often" in gated.stderr
    result = json.loads(cli("compare", str(good), str(tie), "--format", "json").stdout)
    # misselection alone falls to zero: the rule before passed this judge
    assert result["overall"]["after"] == 0.0 and result["overall"]["verdict"] == "not worse"
    assert result["overall"]["tie_aware"]["after"] == 0.5
    assert result["gate"]["worse_on"] == ["tie-aware"]
    # the leaderboard ranks by the tie-aware rate: the always-tie judge is not "best"
    board = json.loads(cli("judges", str(good), str(tie), "--format", "json").stdout)["judges"]
    assert [(j["judge_model"], j["rank"]) for j in board] == [
        ("judge-good", 1),
        ("judge-always-tie", 2),
    ]
    assert board[1]["misselection"]["rate"] == 0.0 < board[0]["misselection"]["rate"]
    assert board[1]["vs_best"]["verdict"] == "worse"
    # the frontier and the change against the best are the rank's too: on misselection the
    # always-tie judge was unbeaten (`*`) and read "worse (-x pts)", a fall beside a worse
    assert [j["frontier"] for j in board] == [True, False]
    rise = board[1]["tie_aware"]["rate"] - board[0]["tie_aware"]["rate"]  # the same pairs
    assert board[1]["vs_best"]["change"] == pytest.approx(rise) and rise > 0.3
    table = cli("judges", str(good), str(tie)).stdout.splitlines()
    always = next(line for line in table if "judge-always-tie" in line)
    assert f"worse (+{rise * 100:.1f} pts)" in always and " *" not in always, always
    assert "judge-good *" in next(line for line in table if "judge-good" in line)


def test_a_first_position_judge_is_worse(good: Path, tmp_path: Path) -> None:
    """The first side shown wins on 80% of orders (the two orders then disagree: a tie)."""

    def first(rng: random.Random, right: str, order: str) -> str:
        return order[0] if rng.random() < 0.8 else right

    biased = _run(tmp_path / "first", _log("judge-first-position", first))
    gated = cli("compare", str(good), str(biased), "--fail-on-rise")
    assert gated.returncode == 3, gated.stdout + gated.stderr
    assert "WORSE on the tie-aware rate" in gated.stdout
    result = json.loads(cli("compare", str(good), str(biased), "--format", "json").stdout)
    assert result["overall"]["change"] < 0, "its misselection fell: ties are never counted"


def test_a_judge_that_is_genuinely_not_worse_still_passes(good: Path, tmp_path: Path) -> None:
    """The same verdicts, but half of the orders that were wrong are now right: misselection
    and the tie-aware rate both fall, so the gate passes (exit 0)."""

    fix = random.Random(1)

    def better(rng: random.Random, right: str, order: str) -> str:
        shown = _good(rng, right, order)
        return right if shown != right and fix.random() < 0.5 else shown

    # the same random stream as judge-good's, so its verdicts are the good judge's, improved
    text = _log("judge-good", better).replace('"judge-good"', '"judge-better"')
    gated = cli("compare", str(good), str(_run(tmp_path / "better", text)), "--fail-on-rise")
    assert gated.returncode == 0, gated.stdout + gated.stderr
    assert "gate (margin 2 points): NOT WORSE\n" in gated.stdout
    assert "tie-aware overall (a tie counts half a loss)" in gated.stdout
    assert "-> not worse" in gated.stdout.split("tie-aware overall")[1].splitlines()[0]

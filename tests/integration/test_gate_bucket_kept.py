"""A bucket's misselection rise that stands beside an overall rise set aside (twenty-second
session): the overall row's rise came from run B deciding pairs run A tied, so it is set aside,
but in the near bucket run B also turned run A's right picks wrong; the gate fails (exit 3) and
its verdict line says so in two short clauses, not the overall row's whole explanation run on
after the bucket's name."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import cli, recorded_run

#: per task, (run A, run B) states of its decisive pairs: R right, T tie, W wrong
NEAR = [("R", "W"), ("T", "R"), ("T", "R"), ("T", "W")]  # pa~pb, trials 0-3
MEDIUM = [("W", "R"), ("T", "R"), ("T", "R"), ("T", "R")]  # pa~pc, pb~pc where one succeeded


def _log(run: int, tasks: int = 40) -> str:
    """pa succeeds on even trials, pb on odd ones, pc never: pa~pb has a gap of 0 (near),
    pa~pc and pb~pc 0.5 (medium); every pair listed is decisive."""
    lines: list[dict[str, object]] = []
    for t in range(tasks):
        pairs = [("pa", "pb", k, NEAR[k]) for k in range(4)]
        pairs += [(x, "pc", k, MEDIUM[i]) for i, (x, k) in enumerate([("pa", 0), ("pb", 1), ("pa", 2), ("pb", 3)])]  # fmt: skip
        for a, b, k, states in pairs:
            sa, sb = (int(x != "pc" and k % 2 == (x == "pb")) for x in (a, b))
            pid = f"c-{t}-{a}-{b}-{k}"
            lines.append(
                {"type": "pair", "pair_id": pid, "task_id": f"task-{t}", "agent_a": a,
                 "agent_b": b, "trial": k, "success_a": sa, "success_b": sb, "task": f"do {t}"}
            )  # fmt: skip
            right, wrong = ("A", "B") if sa else ("B", "A")
            winner = {"R": right, "W": wrong, "T": "tie"}[states[run]]
            for order in ("AB", "BA"):
                lines.append(
                    {"type": "verdict", "pair_id": pid, "order": order, "winner": winner,
                     "judge_model": f"judge-{run}"}
                )  # fmt: skip
    return "".join(json.dumps(line) + "\n" for line in lines)


def _run(folder: Path, run: int) -> Path:
    return recorded_run(folder, _log(run))


def test_a_bucket_rise_kept_beside_the_overall_set_aside_fails_in_short_words(
    tmp_path: Path,
) -> None:
    a, b = _run(tmp_path / "a", 0), _run(tmp_path / "b", 1)
    gated = cli("compare", str(a), str(b), "--fail-on-rise")
    assert gated.returncode == 3, gated.stdout + gated.stderr
    result = json.loads(cli("compare", str(a), str(b), "--format", "json").stdout)
    assert result["gate"]["set_aside"] == ["overall"]
    assert result["gate"]["worse"] == [result["buckets"][0]["label"]]
    near = result["buckets"][0]["label"]
    line = next(x for x in gated.stdout.splitlines() if x.startswith("gate ("))
    # by hand: near, both decided 1 pair per task, R->W on all 40 tasks: +100 pts, p 2^-40
    assert line == (
        f"gate (margin 2 points): WORSE in {near} (where both decided it rose +100.0 pts, "
        f"p={0.5**40:.3g}); overall its rise is set aside (run B decides pairs run A tied; the "
        "tie-aware rate fell -25.0 pts, p=9.09e-13) -> too few pairs to tell where both decided"
    ), line
    assert len(line) < 300
    assert f"misselection rose in: {near}" in gated.stderr

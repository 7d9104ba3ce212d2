"""Moving off a judge that seldom decides (a new user's trial, twenty-first session).

Run A a position-biased judge (`judge-default:position=2.5`, most decisive pairs tied), run B the
default judge on the demo: misselection "rose" 0.0% -> 6.5% because B decides pairs A tied,
while the tie-aware rate fell 28.9% -> 12.6%. `compare --fail-on-rise` said WORSE (exit 3) while
`judges` ranked B best. Now the gate sets the rise aside, says why on the verdict line, and
agrees with the leaderboard both ways round.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import cli

TIED = "judge-default:position=2.5"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("decides")
    demo, tied = root / "demo", root / "tied"
    made = cli("demo", "--no-tui", "--out", str(demo))
    assert made.returncode == 0, made.stderr
    made = cli("rejudge", str(demo), "--out", str(tied), "--judge-model", TIED)
    assert made.returncode == 0, made.stderr
    return demo, tied


def test_moving_off_a_judge_that_ties_passes_and_says_why(runs: tuple[Path, Path]) -> None:
    demo, tied = runs
    gated = cli("compare", str(tied), str(demo), "--fail-on-rise")
    assert gated.returncode == 0, gated.stdout + gated.stderr
    line = next(x for x in gated.stdout.splitlines() if x.startswith("gate ("))
    assert line.startswith(
        "gate (margin 2 points): NOT WORSE: misselection rose +6.5 pts because run B decides "
        "pairs run A tied (A tied 57.8% of the decisive pairs; B decided 296 of them, 254 right "
        "and 42 wrong); the tie-aware rate fell -16.3 pts [-19.6, -13.1]"
    ), line
    assert line.endswith(
        "where both decided (274 pairs) misselection +0.0 pts, bound +1.1 -> not worse"
    )
    overall_row = next(x for x in gated.stdout.splitlines() if x.startswith("  overall"))
    assert "RISE  -> not worse where both decided (the rise: run B decides pairs run A tied)" in (
        overall_row
    )
    # a bucket set aside plans its pairs from the pairs both decided (none flipped: 149)
    assert "-> too few pairs to tell (under the floor of 149) where both decided" in gated.stdout
    result = json.loads(cli("compare", str(tied), str(demo), "--format", "json").stdout)
    assert result["gate"]["decided_on"] == ["misselection where both decided", "tie-aware"]
    assert result["overall"]["significant_rise"] and result["overall"]["set_aside"]
    assert result["gate"]["set_aside"] == ["近同", "小差", "中差", "大差", "overall"]


def test_the_leaderboard_and_the_gate_agree(runs: tuple[Path, Path]) -> None:
    demo, tied = runs
    board = json.loads(cli("judges", str(demo), str(tied), "--format", "json").stdout)["judges"]
    assert [j["judge_model"] for j in board] == ["judge-default", TIED]
    # the leaderboard: the tied judge is worse than the best (the default judge) ...
    assert board[1]["vs_best"]["verdict"] == "worse"
    table = cli("judges", str(demo), str(tied)).stdout
    assert "worse (+16.3 pts)" in next(x for x in table.splitlines() if TIED in x)
    # ... and so is it for the gate with the best as run A (exit 3), while moving from it to
    # the best is not worse (exit 0): the two answer "may I ship this judge?" alike
    assert cli("compare", str(demo), str(tied), "--fail-on-rise").returncode == 3
    assert cli("compare", str(tied), str(demo), "--fail-on-rise").returncode == 0


def test_without_the_flag_a_worse_verdict_says_it_is_not_enforced(runs: tuple[Path, Path]) -> None:
    """A new user: `compare A B` printed "WORSE" and exited 0 with nothing on stderr (a CI step
    that forgot --fail-on-rise ships the worse judge)."""
    demo, tied = runs
    plain = cli("compare", str(demo), str(tied))
    assert plain.returncode == 0 and "): WORSE" in plain.stdout
    assert plain.stderr.strip() == (
        "judgeaudit: the gate is not enforced: with --fail-on-rise this comparison exits 3 "
        "(failed); without it, 0"
    )
    assert cli("compare", str(tied), str(demo)).stderr == ""  # it passes: nothing to say


def test_the_app_says_why_a_set_aside_comparison_passed(runs: tuple[Path, Path]) -> None:
    """A new user: the Runs pane read "gate (--fail-on-rise): PASSED" beside RISE rows with the
    reason nowhere; it now shows the CLI's verdict line."""
    from judgeaudit.analysis.compare_entry import compare_runs
    from judgeaudit.tui.drift_view import changes_text

    demo, tied = runs
    pane = changes_text(compare_runs(tied, demo, None, None)).plain
    assert "gate (--fail-on-rise): PASSED\n" in pane
    assert (
        "gate (margin 2 points): NOT WORSE: misselection rose +6.5 pts because run B decides "
        "pairs run A tied"
    ) in pane

"""What `compare` prints beside each figure (twenty-second session): the tie-aware line names
each run's rate with its interval, as every other rate does (it printed `12.6% -> 13.3%` bare),
and a row where no pair flipped says so instead of a collapsed `[+0.0, +0.0]` interval."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from tests.cli_helpers import cli
from tests.integration.test_gate_ties import _good, _log, _run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The good judge; the same verdicts again (nothing moves); a judge that ties more."""
    folder = tmp_path_factory.mktemp("wording")
    good = _run(folder / "good", _log("judge-good", _good))
    same = _run(folder / "same", _log("judge-good", _good).replace('"judge-good"', '"judge-same"'))

    def unsure(rng: random.Random, right: str, order: str) -> str:
        return "tie" if rng.random() < 0.3 else _good(rng, right, order)

    return good, same, _run(folder / "unsure", _log("judge-unsure", unsure))


def _report_tie_aware(out: Path) -> str:
    """The run's own report's tie-aware rate and interval, as `report` computes them (SQL)."""
    overall = json.loads(cli("report", str(out), "--format", "json").stdout)["overall"]
    low, high = overall["tie_aware_ci"]
    return f"{overall['tie_aware_rate'] * 100:.1f}% [{low * 100:.1f}, {high * 100:.1f}]"


def test_the_tie_aware_line_names_each_runs_interval_as_its_report_does(
    runs: tuple[Path, Path, Path],
) -> None:
    good, _, unsure = runs
    shown = cli("compare", str(good), str(unsure)).stdout
    line = next(x for x in shown.splitlines() if "tie-aware overall" in x)
    before, after = _report_tie_aware(good), _report_tie_aware(unsure)
    assert re.search(rf"{re.escape(before)} \(n=\d+\) -> {re.escape(after)} \(n=\d+\)", line), (
        line, before, after,
    )  # fmt: skip
    result = json.loads(cli("compare", str(good), str(unsure), "--format", "json").stdout)
    tie = result["overall"]["tie_aware"]
    assert tie["ci_before"][0] < tie["before"] < tie["ci_before"][1]
    assert tie["ci_after"][0] < tie["after"] < tie["ci_after"][1]


def test_a_row_where_no_pair_changed_says_so_not_a_zero_width_interval(
    runs: tuple[Path, Path, Path],
) -> None:
    good, same, _ = runs
    gated = cli("compare", str(good), str(same), "--fail-on-rise")
    assert gated.returncode == 0, gated.stdout + gated.stderr
    assert "[+0.0, +0.0]" not in gated.stdout
    rows = [
        x for x in gated.stdout.splitlines() if "flipped 0 to misselected" in x and "(n=0)" not in x
    ]
    assert len(rows) == 2 and all("+0.0 (no pair flipped) bound +" in x for x in rows), rows
    tie = next(x for x in gated.stdout.splitlines() if "tie-aware overall" in x)
    assert "+0.0 (no pair flipped) bound +" in tie, tie

"""bench/gate_calibration.py in its small CI configuration: it runs end to end and prints every
rate with its interval (the figures themselves are published in docs/gate.md, not asserted); and
the two benches that read its work folder, ``gate_null_spread.py`` and ``crossfit_gap.py``, run
on what it left, so neither rots unread."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHES = Path(__file__).resolve().parents[2] / "bench"


def run_bench(name: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run ``bench/<name>`` with ``args`` in this interpreter; its output is kept for the asserts."""
    return subprocess.run(
        [sys.executable, str(BENCHES / name), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


@pytest.mark.slow
def test_gate_calibration_small_configuration_runs(tmp_path: Path) -> None:
    figures, work = tmp_path / "calibration.json", tmp_path / "work"
    done = run_bench("gate_calibration.py", "--small", "--json", figures, "--workdir", work)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "null re-judges: false alarm (worse, exit 3)" in done.stdout
    assert "power (worse, exit 3)" in done.stdout and "(Wilson 95%)" in done.stdout
    data = json.loads(figures.read_text())
    size = data["sizes"][0]
    assert size["false_alarm"]["n"] == 2 and size["decisive"] > 0
    assert data["replicates"]["refused"]["k"] == data["replicates"]["comparisons"], (
        "unpaired seed replicates are refused by the gate, never gated on seed noise"
    )

    spread = run_bench("gate_null_spread.py", work)
    assert spread.returncode == 0, spread.stdout + spread.stderr
    assert "variance of the total / sum of per-task variances" in spread.stdout
    crossfit = run_bench("crossfit_gap.py", work / "rep-1", work / "rep-2")
    assert crossfit.returncode == 0, crossfit.stdout + crossfit.stderr
    assert "pairs moved:" in crossfit.stdout
    one_trial = run_bench("crossfit_gap.py", work / "src-t1-x1")
    assert one_trial.returncode != 0 and "cross-fitting needs two or more" in one_trial.stderr

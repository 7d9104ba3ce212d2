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
BENCH = BENCHES / "gate_calibration.py"


@pytest.mark.slow
def test_gate_calibration_small_configuration_runs(tmp_path: Path) -> None:
    figures, work = tmp_path / "calibration.json", tmp_path / "work"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--small", "--json", str(figures), "--workdir", str(work)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "null re-judges: false alarm (worse, exit 3)" in done.stdout
    assert "power (worse, exit 3)" in done.stdout and "(Wilson 95%)" in done.stdout
    data = json.loads(figures.read_text())
    size = data["sizes"][0]
    assert size["false_alarm"]["n"] == 2 and size["decisive"] > 0
    assert data["replicates"]["refused"]["k"] == data["replicates"]["comparisons"], (
        "unpaired seed replicates are refused by the gate, never gated on seed noise"
    )

    spread = subprocess.run(
        [sys.executable, str(BENCHES / "gate_null_spread.py"), str(work)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert spread.returncode == 0, spread.stdout + spread.stderr
    assert "variance of the total / sum of per-task variances" in spread.stdout
    replicates = [str(work / "rep-1"), str(work / "rep-2")]
    crossfit = subprocess.run(
        [sys.executable, str(BENCHES / "crossfit_gap.py"), *replicates],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert crossfit.returncode == 0, crossfit.stdout + crossfit.stderr
    assert "pairs moved:" in crossfit.stdout
    one_trial = subprocess.run(
        [sys.executable, str(BENCHES / "crossfit_gap.py"), str(work / "src-t1-x1")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert one_trial.returncode != 0 and "cross-fitting needs two or more" in one_trial.stderr

"""bench/gate_calibration.py in its small CI configuration: it runs end to end and prints every
rate with its interval (the figures themselves are published in docs/gate.md, not asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gate_calibration.py"


@pytest.mark.slow
def test_gate_calibration_small_configuration_runs(tmp_path: Path) -> None:
    figures = tmp_path / "calibration.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--small", "--json", str(figures)],
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

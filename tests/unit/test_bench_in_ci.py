"""Every benchmark runs in CI in a small configuration (scripts/test.sh, "benchmarks, small
configurations"), or is named there as run inside the tests, so none rots unnoticed;
``bench/consistency_scans.py`` was in neither (a new user's report). A module other
benchmarks import (the bare provider, the process helpers) runs through them."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_benchmark_is_in_the_ci_step() -> None:
    script = (REPO / "scripts" / "test.sh").read_text(encoding="utf-8")
    start = script.index("== benchmarks, small configurations")
    step = script[start : script.index("\nfi\n", start)]
    benches = sorted((REPO / "bench").glob("*.py"))
    imported = {
        name
        for p in benches
        for name in re.findall(r"^from bench\.(\w+) import", p.read_text(), re.M)
    }
    missing = [p.name for p in benches if p.name not in step and p.stem not in imported]
    assert len(benches) > 20 and not missing, f"add to scripts/test.sh's bench step: {missing}"
    assert "timeout 180 $B/consistency_scans.py --rows 20000 --rounds 1" in step

"""The demo's claims over seeds, not for one: `judgeaudit demo --seeds 3` runs seeds 1..3 and
the claims that held in all of seeds 1..10 (docs/reports.md) hold in each; the spread and
every seed's figures are written to OUT/seeds.json."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import cli


def test_near_above_large_holds_in_every_seed(tmp_path: Path) -> None:
    out = tmp_path / "seeds"
    done = cli("demo", "--seeds", "3", "--no-tui", "--events", "progress", "--out", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "over 3 seeds (1..3): min / median / max" in done.stdout
    summary = json.loads((out / "seeds.json").read_text())
    assert summary["seeds"] == [1, 2, 3]
    assert summary["claims"]["near rate above large rate"] == 3
    assert summary["claims"]["odds ratio per 0.1 below 1 (interval)"] == 3
    near = summary["figures"]["near misselection rate"]["by_seed"]
    assert len(set(near.values())) == 3, "each seed is its own audit"
    assert all((out / f"seed-{k}" / "report.html").exists() for k in (1, 2, 3))

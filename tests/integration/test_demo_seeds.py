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


def test_seeds_json_that_is_a_runs_file_is_refused_before_any_seed_runs(tmp_path: Path) -> None:
    """OUT/seeds.json linking to another run's audit.db is refused in one line, before the
    seeds' minutes of runs, nothing written (without the guard every seed ran, then the link
    was replaced by the spread)."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "audit.db").write_bytes(b"a run's database")
    out = tmp_path / "seeds"
    out.mkdir()
    (out / "seeds.json").symlink_to(run / "audit.db")
    done = cli("demo", "--seeds", "2", "--no-tui", "--out", str(out))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"judgeaudit: demo --seeds: --out {out / 'seeds.json'}: is audit.db, a file of the run "
        f"in {run}; write the output outside the run's files, e.g. under a new file name "
        "(nothing was written; --force does not change this)\n"
    )
    assert sorted(p.name for p in out.iterdir()) == ["seeds.json"]  # no seed-K folder
    assert (out / "seeds.json").is_symlink()
    assert (run / "audit.db").read_bytes() == b"a run's database"

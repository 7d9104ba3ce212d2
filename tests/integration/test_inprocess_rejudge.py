"""The in-process re-judge that lets ``bench/gate_calibration_inprocess.py`` afford hundreds of
null re-judges is only valid if it is ``judgeaudit rejudge``: the same preference for every pair
at the same seed and judge, and the same gate outcome as ``compare --fail-on-rise``."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.audit_helpers import finished_run
from tests.cli_helpers import cli

BENCH = Path(__file__).resolve().parents[2] / "bench"
WEAK = "judge-default:diligence=0,evidence=0.3,style=0.7"


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return finished_run(tmp_path_factory.mktemp("inprocess"), 24, name="src")


def rejudged(source: Path, model: str, seed: int) -> Path:
    """``judgeaudit run`` of a re-judge spec (what ``rejudge`` writes) with its own seed."""
    out = source.parent / f"rj-{abs(hash((model, seed)))}"
    if out.exists():
        return out
    spec = source.parent / f"{out.name}.toml"
    spec.write_text(
        f'[run]\nname = "rj"\ntrajectories_from = "{source}"\nseed = {seed}\n\n'
        '[endpoints.sim]\nbase_url = "embedded"\n\n'
        f'[judge]\nmodel = "{model}"\nendpoint = "sim"\n',
        encoding="utf-8",
    )
    done = cli("run", str(spec), "--out", str(out), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    return out


def stored_prefs(out: Path) -> dict[str, list[str]]:
    db = sqlite3.connect(out / "audit.db")
    try:
        rows = db.execute("SELECT pair_id, pref_ab, pref_ba, judge_pref FROM audit_pairs")
        return {pair.split("/", 1)[1]: [ab, ba, pref] for pair, ab, ba, pref in rows}
    finally:
        db.close()


def bench(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize(("model", "seed"), [("judge-default", 23), (WEAK, 5)])
def test_an_in_process_rejudge_equals_judgeaudit_rejudge_pair_for_pair(
    source: Path, model: str, seed: int
) -> None:
    expected = stored_prefs(rejudged(source, model, seed))
    printed = json.loads(
        bench("inprocess_rejudge.py", str(source), "--model", model, "--seed", str(seed))
    )
    assert len(printed) == len(expected) == 72
    assert printed == expected
    assert printed != stored_prefs(source), "another seed or judge changes some verdicts"


def test_the_in_process_gate_decides_as_compare_fail_on_rise(source: Path, tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    bench(
        "gate_calibration_inprocess.py",
        str(source),
        "--nulls",
        "2",
        "--first-seed",
        "31",
        "--weak-seeds",
        "1",
        "--json",
        str(figures),
    )
    data = json.loads(figures.read_text(encoding="utf-8"))
    cases = [
        (source, rejudged(source, "judge-default", 31), data["nulls_vs_source"]["gates"][0]),
        (source, rejudged(source, "judge-default", 32), data["nulls_vs_source"]["gates"][1]),
        (
            rejudged(source, "judge-default", 31),
            rejudged(source, "judge-default", 32),
            data["disjoint_nulls"]["gates"][0],
        ),
        (source, rejudged(source, WEAK, 31), data["weaker"][WEAK]["gates"][0]),
    ]
    for before, after, gated in cases:
        done = cli("compare", str(before), str(after), "--fail-on-rise", "--format", "json")
        result = json.loads(done.stdout)
        assert done.returncode == gated["exit"], (before.name, after.name, gated)
        assert result["overall"]["change"] == pytest.approx(gated["change"], abs=1e-12)
        assert result["overall"]["upper"] == pytest.approx(gated["upper"], abs=1e-12)
        rows = {r["label"]: r["verdict"] for r in [*result["buckets"], result["overall"]]}
        assert rows == gated["rows"]
    assert {g["exit"] for g in data["weaker"][WEAK]["gates"]} <= {3, 5}

"""Style attribution against the simulated judge's known weights: re-judges of the demo's
conversations by judges that weigh style, evidence and diligence differently, read back by the
report's model (docs/why.md). The demo spec with one trial keeps it to a few minutes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import cli

pytestmark = pytest.mark.slow
DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.toml"


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("style")
    spec = folder / "demo.toml"
    spec.write_text(DEMO.read_text(encoding="utf-8").replace("trials = 2", "trials = 1"))
    done = cli("run", str(spec), "--out", str(folder / "demo"), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    return folder / "demo"


_CACHE: dict[str, dict[str, Any]] = {}


def style_of(source: Path, judge: str) -> dict[str, Any]:
    """The report's ``style`` section for a re-judge of ``source`` by ``judge``."""
    if judge not in _CACHE:
        out = source.parent / judge.replace(":", "_").replace(",", "_").replace("=", "")
        done = cli("rejudge", str(source), "--out", str(out), "--judge-model", judge)
        assert done.returncode == 0, done.stderr
        report = cli("report", str(out), "--format", "json")
        assert report.returncode == 0, report.stderr
        _CACHE[judge] = json.loads(report.stdout)["style"]
    return _CACHE[judge]


def term(style: dict[str, Any], feature: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [t for t in style["terms"] if t["feature"] == feature]
    assert found, f"{feature} not fitted: {style.get('dropped')}"
    return found[0]


def test_a_judge_that_weighs_style_shows_a_style_term_that_an_evidence_judge_does_not(
    source: Path,
) -> None:
    heavy = style_of(source, "judge-default:style=0.9,evidence=0.1")
    light = style_of(source, "judge-default:style=0.1,evidence=0.9")
    assert heavy["status"] == "ok" and light["status"] == "ok"
    for t in heavy["terms"]:
        assert set(t) >= {"feature", "odds_ratio", "ci_low", "ci_high"}
    found = [
        name
        for name in ("length", "courtesy", "turns", "asks_confirmation", "cites_ids")
        if any(t["feature"] == name for t in heavy["terms"])
        and term(heavy, name)["ci_low"] > 1
        and any(t["feature"] == name for t in light["terms"])
        and term(heavy, name)["odds_ratio"] > term(light, name)["odds_ratio"]
    ]
    assert "length" in found or "courtesy" in found, (heavy["terms"], light["terms"])
    # the style-weighted judge's misselections are the ones style explains
    assert heavy["explained"] > light["explained"]


def test_a_judge_that_never_cross_checks_rewards_a_failed_claim_more(source: Path) -> None:
    careless = term(style_of(source, "judge-default:diligence=0"), "claimed_but_failed")
    careful = term(style_of(source, "judge-default:diligence=1"), "claimed_but_failed")
    assert careless["odds_ratio"] > careful["odds_ratio"]
    assert careful["ci_high"] < 1  # a diligent judge penalises a claim the state contradicts


def test_without_style_weight_the_controlled_rate_is_the_raw_one(source: Path) -> None:
    style = style_of(source, "judge-default:style=0")
    raw, controlled = style["raw_rate"], style["controlled_rate"]
    assert controlled["rate"] <= raw["rate"] + 0.01
    assert abs(controlled["rate"] - raw["rate"]) < 0.03
    assert controlled["ci_low"] <= raw["rate"] <= controlled["ci_high"]


def test_review_export_over_samples_the_pairs_length_explains(source: Path) -> None:
    judge = "judge-default:style=0.9,evidence=0.1"
    style = style_of(source, judge)
    assert style["explained_by"].get("length", 0) >= 1
    out = source.parent / judge.replace(":", "_").replace(",", "_").replace("=", "")
    sample = out / "sample.csv"
    done = cli("review", "export", str(out), "--n", "20", "--explained-by", "length",
               "--file", str(sample))  # fmt: skip
    assert done.returncode == 0, done.stderr
    import csv
    import sqlite3

    rows = list(csv.DictReader(sample.open(encoding="utf-8")))
    picked = [r["pair_id"] for r in rows if r["stratum"] == "explained_by_length"]
    assert len(picked) == min(10, style["explained_by"]["length"])
    db = sqlite3.connect(out / "audit.db")
    flags = {pid: m for pid, m in db.execute("SELECT pair_id, misselected FROM audit_pairs")}
    db.close()
    assert all(flags[p] == 1 for p in picked)
    assert len(rows) == 20


def test_the_leaderboard_hook_names_the_largest_feature_odds_ratio(source: Path) -> None:
    from judgeaudit.analysis.why import largest_style_term

    judge = "judge-default:style=0.9,evidence=0.1"
    style = style_of(source, judge)
    out = source.parent / judge.replace(":", "_").replace(",", "_").replace("=", "")
    found = largest_style_term(out, None)
    assert found is not None
    features = [t for t in style["terms"] if t["kind"] not in ("success", "position")]
    top = max(features, key=lambda t: t["odds_ratio"])
    assert found[0] == top["feature"] and found[1] == pytest.approx(top["odds_ratio"])

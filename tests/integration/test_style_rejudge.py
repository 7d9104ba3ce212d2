"""Style attribution against the simulated judge's known weights: re-judges of the demo's
conversations by judges that weigh style, evidence and diligence differently, read back by the
report's model (docs/why.md). The demo spec with one trial keeps it to a few minutes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import cli

pytestmark = pytest.mark.slow
DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.toml"
SMOOTH = Path(__file__).resolve().parents[2] / "examples" / "smooth_talkers.toml"
HEAVY = "judge-default:style=0.9,evidence=0.1"


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("style")
    spec = folder / "demo.toml"
    spec.write_text(DEMO.read_text(encoding="utf-8").replace("trials = 2", "trials = 1"))
    done = cli("run", str(spec), "--out", str(folder / "demo"), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    return folder / "demo"


@pytest.fixture(scope="module")
def smooth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/smooth_talkers.toml as shipped: style goes with failure there."""
    folder = tmp_path_factory.mktemp("smooth")
    done = cli("run", str(SMOOTH), "--out", str(folder / "smooth"), "--events", "jsonl")
    assert done.returncode == 0, done.stderr
    return folder / "smooth"


_CACHE: dict[tuple[Path, str], dict[str, Any]] = {}


def style_of(source: Path, judge: str) -> dict[str, Any]:
    """The report's ``style`` section for a re-judge of ``source`` by ``judge``."""
    if (source, judge) not in _CACHE:
        out = source.parent / judge.replace(":", "_").replace(",", "_").replace("=", "")
        done = cli("rejudge", str(source), "--out", str(out), "--judge-model", judge)
        assert done.returncode == 0, done.stderr
        report = cli("report", str(out), "--format", "json")
        assert report.returncode == 0, report.stderr
        _CACHE[(source, judge)] = json.loads(report.stdout)["style"]
    return _CACHE[(source, judge)]


def longer_side_share(out: Path) -> float:
    """Share of decisive pairs whose *successful* side wrote more characters, counted by hand
    from audit.db (the agent's messages, stripped), not through the feature code."""
    db = sqlite3.connect(out / "audit.db")
    chars: dict[tuple[str, str, int], int] = {}
    for task, agent, trial, events in db.execute(
        "SELECT task_id, agent, trial, events FROM trajectories"
    ):
        said = [e.get("content") or "" for e in json.loads(events) if e.get("role") == "agent"]
        chars[(task, agent, int(trial))] = sum(len(str(m).strip()) for m in said)
    wins = total = 0
    for task, a, b, trial, trial_b, ok_a in db.execute(
        "SELECT task_id, agent_a, agent_b, trial, COALESCE(trial_b, trial), success_a"
        " FROM audit_pairs WHERE success_a != success_b"
    ):
        len_a, len_b = chars[(task, a, int(trial))], chars[(task, b, int(trial_b))]
        if len_a != len_b:
            total += 1
            wins += (len_a > len_b) == bool(ok_a)
    db.close()
    return wins / total


def term(style: dict[str, Any], feature: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [t for t in style["terms"] if t["feature"] == feature]
    assert found, f"{feature} not fitted: {style.get('dropped')}"
    return found[0]


def test_a_judge_that_weighs_style_shows_a_style_term_that_an_evidence_judge_does_not(
    source: Path,
) -> None:
    heavy = style_of(source, HEAVY)
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
    judge = HEAVY
    style = style_of(source, judge)
    assert style["explained_by"].get("length", 0) >= 1
    out = source.parent / judge.replace(":", "_").replace(",", "_").replace("=", "")
    sample = out / "sample.csv"
    # --unblind: the strata are read below
    done = cli("review", "export", str(out), "--n", "20", "--explained-by", "length",
               "--file", str(sample), "--unblind")  # fmt: skip
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


def test_the_leaderboard_hook_names_the_largest_stable_feature_odds_ratio(source: Path) -> None:
    from judgeaudit.analysis.why import largest_style_term

    judge = HEAVY
    style = style_of(source, judge)
    out = source.parent / judge.replace(":", "_").replace(",", "_").replace("=", "")
    found = largest_style_term(out, None)
    assert found is not None
    features = [t for t in style["terms"] if t["kind"] not in ("success", "position")]
    # among the stable terms: cites_ids 7.65e+03 [643, 9.11e+04] spans 142-fold (by hand), over
    # 100, and its size is not measured (docs/why.md, "Unstable odds ratios")
    stable = [t for t in features if t["ci_high"] / t["ci_low"] <= 100]
    assert {t["feature"] for t in features} - {t["feature"] for t in stable} == {"cites_ids"}
    top = max(stable, key=lambda t: t["odds_ratio"])
    assert found[0] == top["feature"] and found[1] == pytest.approx(top["odds_ratio"])


def test_where_style_goes_with_failure_controlling_for_it_lowers_the_rate(smooth: Path) -> None:
    """The issue's proof line, on the data it presumes: the failed side is the wordier one."""
    assert longer_side_share(smooth) < 0.5
    heavy = style_of(smooth, HEAVY)
    assert heavy["status"] == "ok"
    raw, controlled = heavy["raw_rate"], heavy["controlled_rate"]
    assert controlled["rate"] < raw["rate"]
    assert any(term(heavy, f)["ci_low"] > 1 for f in ("length", "courtesy", "turns")
               if any(t["feature"] == f for t in heavy["terms"]))  # fmt: skip
    blind = style_of(smooth, "judge-default:style=0")
    assert abs(blind["controlled_rate"]["rate"] - blind["raw_rate"]["rate"]) < 0.03
    assert blind["controlled_rate"]["ci_low"] <= blind["raw_rate"]["rate"]
    assert blind["raw_rate"]["rate"] <= blind["controlled_rate"]["ci_high"]


def test_where_style_goes_with_success_controlling_for_it_raises_the_rate(source: Path) -> None:
    """The demo: the successful side is usually the longer, so style helps this judge."""
    assert longer_side_share(source) > 0.5
    heavy = style_of(source, HEAVY)
    assert heavy["controlled_rate"]["rate"] > heavy["raw_rate"]["rate"]

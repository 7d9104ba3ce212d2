"""The figures in their right unit, against independent references (statsmodels, scipy, hand):
the three-way split and tie-aware rate, the design-effect Wilson interval, position bias with
unparsed orders, per-conversation satisfied-but-failed, and the interval's coverage at 2%."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from judgeaudit.analysis.clustered import Sums, interval
from judgeaudit.analysis.report import build_report, render
from judgeaudit.audit.store import PAIR_COLUMNS, AuditStore


def _pair(i: int, task: str, sa: int, sb: int, pref: str, **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(PAIR_COLUMNS)
    winner = "A" if sa > sb else "B" if sb > sa else None
    row.update(
        pair_id=f"p{i}", task_id=task, agent_a="x", agent_b="y", success_a=sa, success_b=sb,
        judge_pref=pref, misselected=int(winner is not None and pref not in (winner, "tie")),
        run_id="r1", gap_source="capability", capability_a=0.5, capability_b=0.4,
        judge_model="j", trial=0, trial_b=0, pref_ab=pref, pref_ba=pref,
        consistent=int(pref != "tie"),
    )  # fmt: skip
    row.update(extra)
    return row


def _db(
    out: Path, rows: list[dict[str, Any]], logs: Sequence[tuple[str, str, str | None]] = ()
) -> Path:
    AuditStore(out / "audit.db").close()
    db = sqlite3.connect(out / "audit.db")
    with db:
        db.execute(
            "INSERT INTO runs (run_id, spec_hash, manifest, status) VALUES ('r1', 'h', ?, 'x')",
            (json.dumps({"settings": {"gap_source": "capability"}}),),
        )
        db.executemany(
            f"INSERT INTO audit_pairs ({', '.join(PAIR_COLUMNS)})"
            f" VALUES ({', '.join('?' for _ in PAIR_COLUMNS)})",
            [[r[c] for c in PAIR_COLUMNS] for r in rows],
        )
        db.executemany(
            'INSERT INTO judge_logs (log_id, pair_id, role, model, run_id, "order", attempt,'
            " parse_error) VALUES (?, ?, 'judge', 'j', 'r1', ?, 0, ?)",
            [(f"{p}/{o}", p, o, err) for p, o, err in logs],
        )
    db.close()
    return out


def test_three_way_split_and_tie_aware_rate_by_hand(tmp_path: Path) -> None:
    # 10 decisive pairs: 5 right, 2 wrong, 3 ties (a judge hiding misselection in ties).
    prefs = ["A"] * 5 + ["B"] * 2 + ["tie"] * 3
    rows = [_pair(i, f"t{i % 4}", 1, 0, p) for i, p in enumerate(prefs)]
    rows.append(_pair(99, "t0", 1, 1, "A"))  # not decisive: in no split
    report = build_report(_db(tmp_path, rows))
    overall = report["overall"]
    assert (overall["right"], overall["wrong"], overall["tie"]) == (5, 2, 3)
    assert overall["decisive"] == 10 and overall["rate"] == pytest.approx(0.2)
    assert overall["tie_aware_rate"] == pytest.approx((2 + 0.5 * 3) / 10)
    assert report["misselected"] == overall["wrong"]  # the seed's figure, unchanged
    bucket = next(b for b in report["buckets"] if b["decisive"])
    assert (bucket["right"], bucket["wrong"], bucket["tie"]) == (5, 2, 3)
    low, high = bucket["tie_aware_ci"] or (None, None)
    assert low is not None and high is not None and low < 0.35 < high
    text = render(report, "table")
    assert "right 5, wrong 2, tie 3" in text and "tie-aware 35.0%" in text
    for fmt in ("md", "html"):
        assert "tie-aware" in render(report, fmt)


def _statsmodels_deff(y: np.ndarray, groups: np.ndarray) -> float:
    """The design effect as statsmodels sees it: the intercept's cluster-robust variance over
    its plain OLS variance (each with its own small-sample factor), at least 1."""
    ones = np.ones_like(y)
    clustered = sm.OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": groups})
    plain = sm.OLS(y, ones).fit()
    return max(1.0, float(clustered.bse[0]) ** 2 / float(plain.bse[0]) ** 2)


def _statsmodels_interval(y: np.ndarray, groups: np.ndarray) -> tuple[float, float]:
    """statsmodels' Wilson interval at the effective n = n / deff."""
    p, n = float(y.mean()), len(y)
    deff = _statsmodels_deff(y, groups)
    low, high = proportion_confint(p * n / deff, n / deff, method="wilson")
    return float(low), float(high)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_design_effect_wilson_matches_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(30), rng.integers(1, 6, size=30))
    task_rate = rng.beta(1, 4, size=30)
    y = (rng.random(len(groups)) < task_rate[groups]).astype(float)
    per_task = [(float(y[groups == g].sum()), float((groups == g).sum())) for g in range(30)]
    ours = interval(Sums.of(per_task))
    low, high = _statsmodels_interval(y, groups)
    assert ours["ci_low"] == pytest.approx(low, rel=1e-9)
    assert ours["ci_high"] == pytest.approx(high, rel=1e-9)


def test_no_events_give_wilson_not_a_zero_width_interval() -> None:
    found = interval(Sums.of([(0, 1)] * 6))
    low, high = proportion_confint(0, 6, method="wilson")
    assert found["ci_low"] == pytest.approx(low, abs=1e-12) and found["ci_high"] == pytest.approx(
        high
    )
    assert (found["ci_high"] or 0) > 0.3


def test_interval_covers_at_a_true_rate_of_two_percent_with_few_events() -> None:
    """~66 decisive pairs over 33 tasks, a task effect (ICC ~0.05), true rate 2%: >= 93%."""
    rng = np.random.default_rng(7)
    true, reps, covered = 0.02, 4000, 0
    a = true * (1 / 0.05 - 1)  # beta(a, b) with mean 2% and intra-class correlation 0.05
    b = (1 - true) * (1 / 0.05 - 1)
    for _ in range(reps):
        rates = rng.beta(a, b, size=33)
        k = rng.binomial(2, rates)
        found = interval(Sums.of([(float(x), 2.0) for x in k]))
        low, high = found["ci_low"], found["ci_high"]
        assert low is not None and high is not None
        covered += low <= true <= high
    assert covered / reps >= 0.93, covered / reps


def test_position_bias_leaves_out_orders_without_a_verdict(tmp_path: Path) -> None:
    # 8 pairs flip towards the first position (A in AB, B in BA), 2 towards the second;
    # 6 pairs have an unparsed AB order (stored as a tie) and B won BA: the old figure counted
    # those as decided order disagreements and they pulled "first position wins" down.
    rows, logs = [], []
    for i in range(8):
        rows.append(_pair(i, f"t{i}", 1, 0, "tie", pref_ab="A", pref_ba="B", consistent=0))
    for i in range(8, 10):
        rows.append(_pair(i, f"t{i}", 1, 0, "tie", pref_ab="B", pref_ba="A", consistent=0))
    for i in range(10, 16):
        rows.append(_pair(i, f"t{i}", 1, 0, "tie", pref_ab="tie", pref_ba="A", consistent=0))
        logs.append((f"p{i}", "AB", "unparsable"))
    report = build_report(_db(tmp_path, rows, logs))
    (bias,) = report["position_bias"]
    assert bias["unparsed_orders"] == 6
    flips = bias["flips_won_by_first"]
    assert (flips["won_by_first"], flips["order_disagreements"]) == (8, 10)
    assert flips["p_value"] == pytest.approx(binomtest(8, 10, 0.5).pvalue)
    low, high = proportion_confint(8, 10, method="wilson")
    assert (flips["ci_low"], flips["ci_high"]) == (pytest.approx(low), pytest.approx(high))
    orders = bias["first_position_win_rate"]
    # decided orders: 20 of the flipping pairs + 6 BA orders (A won, B shown first: a loss)
    assert (orders["first_position_wins"], orders["decided_orders"]) == (16, 26)
    # two orders of one pair share a task: the test runs on the design-effect-adjusted counts
    y = np.array([1.0] * 16 + [0.0] * 4 + [0.0] * 6)
    groups = np.array([i // 2 for i in range(20)] + list(range(10, 16)))
    deff = _statsmodels_deff(y, groups)
    assert orders["design_effect"] == pytest.approx(deff)
    n_eff = round(26 / deff)
    assert orders["p_value"] == pytest.approx(binomtest(round(16 / 26 * n_eff), n_eff).pvalue)
    assert "first_position_wins" not in {k for k, v in bias.items() if not isinstance(v, dict)}
    text = render(report, "table")
    assert "unparsed orders 6" in text and "8/10" in text


def test_satisfied_but_failed_counts_each_conversation_once(tmp_path: Path) -> None:
    # One failed conversation the user simulator was satisfied with, in 5 pairs (as in the
    # demo: every agent meets the other five); one satisfied and successful, in 1 pair.
    rows = [
        _pair(i, "t1", 0, 1, "B", agent_a="weak", agent_b=f"o{i}", satisfied_a=1, satisfied_b=0)
        for i in range(5)
    ]
    rows.append(_pair(9, "t2", 1, 0, "A", agent_a="ace", agent_b="z", satisfied_a=1, satisfied_b=0))
    sbf = build_report(_db(tmp_path, rows))["satisfied_but_failed"]["user_simulator"]
    assert (sbf["failed"], sbf["satisfied"]) == (1, 2)  # per pair side it read 5/6
    assert sbf["unit"].startswith("conversation")


def _split_of(row: Mapping[str, Any]) -> tuple[int, int, int]:
    return row["right"], row["wrong"], row["tie"]


def test_judge_models_and_task_types_with_a_null_have_their_own_split(tmp_path: Path) -> None:
    """A run with one judge model (or task type) shares the agent pairs' (or the overall) split;
    a NULL model or type beside it is a second group the breakdown rows leave out, by hand."""
    judged = [_pair(i, f"t{i}", 1, 0, p, task_type="refund") for i, p in enumerate("ABB")]
    unjudged = [_pair(10 + i, f"t{i}", 1, 0, "A", judge_model=None) for i in range(2)]
    report = build_report(_db(tmp_path, judged + unjudged))
    (pair,) = report["agent_pairs"]
    assert _split_of(pair) == (3, 2, 0)  # every pair of x~y
    (models,) = report["by_models"]  # the NULL judge's row is left out
    assert models["judge_model"] == "j" and _split_of(models) == (1, 2, 0)
    (kind,) = report["by_task_type"]
    assert kind["task_type"] == "refund" and _split_of(kind) == (1, 2, 0)


def test_one_judge_model_and_task_type_split_as_their_agent_pair_and_run(tmp_path: Path) -> None:
    prefs = ["A", "B", "B", "A", "A", "tie"]
    rows = [_pair(i, f"t{i % 3}", 1, 0, p, task_type="refund") for i, p in enumerate(prefs)]
    report = build_report(_db(tmp_path, rows))
    (pair,), (models,), (kind,) = report["agent_pairs"], report["by_models"], report["by_task_type"]
    assert _split_of(pair) == _split_of(models) == _split_of(kind) == (3, 2, 1)
    assert models["ci_low"] == pair["ci_low"] and kind["ci_high"] == report["overall"]["ci_high"]

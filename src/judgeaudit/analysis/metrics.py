"""The figures a reward-modelling engineer acts on, each from the audit_pairs frame."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from judgeaudit.analysis.frame import LABELS_EN, LABELS_ZH, decisive_mask, gap_series, nan_to_none
from judgeaudit.analysis.stats import cluster_bootstrap, wilson
from judgeaudit.audit.units.gap import bucket_series
from judgeaudit.score_scale import SATISFIED_AT


def _rate(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"rate": k / n if n else None, "ci_low": low, "ci_high": high}


def clustered(frame: pd.DataFrame, key: str) -> dict[Any, tuple[Any, Any]]:
    """Task-clustered 95% intervals of misselection per group of ``frame`` (columns: the key,
    ``task_id``, ``decisive``, ``missel``); only decisive pairs carry weight."""
    decisive = frame[(frame["decisive"] == 1) & frame[key].notna()]
    tasks, _ = pd.factorize(decisive["task_id"])
    per_task = (
        decisive.assign(task=tasks)
        .groupby([key, "task"], observed=True, sort=True)[["decisive", "missel"]]
        .sum()
    )
    out: dict[Any, tuple[Any, Any]] = {}
    for group, part in per_task.groupby(level=0, observed=True):
        out[group] = cluster_bootstrap(part["missel"].tolist(), part["decisive"].tolist())
    return out


def _boot(interval: tuple[Any, Any] | None) -> dict[str, Any]:
    low, high = interval or (None, None)
    return {"boot_low": low, "boot_high": high}


def buckets(
    pairs: pd.DataFrame,
    source: str,
    bins: list[float],
    labels: list[str],
    gap: pd.Series | None = None,
) -> list[dict[str, Any]]:
    """Misselection per gap bucket over decisive pairs; empty buckets are kept."""
    gap = gap_series(pairs, source) if gap is None else gap
    cut = bucket_series(gap, bins, labels)
    frame = pd.DataFrame(
        {
            "bucket": cut,
            "task_id": pairs["task_id"] if "task_id" in pairs else pairs["pair_id"],
            "decisive": decisive_mask(pairs).astype(int),
            "missel": pairs["misselected"].fillna(0).astype(int),
        }
    )
    grouped = frame.groupby("bucket", observed=False).agg(
        pairs=("decisive", "size"), decisive=("decisive", "sum"), misselected=("missel", "sum")
    )
    counts: dict[Any, dict[Any, Any]] = grouped.to_dict("index")
    boots = clustered(frame, "bucket")
    out = []
    for index, label in enumerate(labels):
        row = counts[label]
        n, k = int(row["decisive"]), int(row["misselected"])
        alias = LABELS_EN[LABELS_ZH.index(label)] if label in LABELS_ZH else label
        out.append(
            {
                "label": label,
                "alias": alias,
                "lo": bins[index],
                "hi": bins[index + 1],
                "pairs": int(row["pairs"]),
                "decisive": n,
                "misselected": k,
                **_rate(k, n),
                **_boot(boots.get(label)),
            }
        )
    return out


def coverage(
    pairs: pd.DataFrame, source: str, bins: list[float], gap: pd.Series | None = None
) -> dict[str, int]:
    """Pairs the buckets cannot show: no gap (e.g. no judge scores) or a gap outside the bins."""
    gap = gap_series(pairs, source) if gap is None else gap
    inside = bucket_series(gap, bins, [str(i) for i in range(len(bins) - 1)]).notna()
    return {"no_gap": int(gap.isna().sum()), "outside_bins": int((gap.notna() & ~inside).sum())}


def agent_pairs(pairs: pd.DataFrame) -> list[dict[str, Any]]:
    """Per agent pair: success rates, judge win rate, misselection, ranking misselection."""
    frame = pairs.assign(
        decisive=decisive_mask(pairs).astype(int),
        a_wins=(pairs["judge_pref"] == "A").astype(int),
        b_wins=(pairs["judge_pref"] == "B").astype(int),
        missel=pairs["misselected"].fillna(0).astype(int),
    )
    grouped = frame.groupby(["agent_a", "agent_b"], sort=True).agg(
        pairs=("pair_id", "size"),
        success_a=("success_a", "mean"),
        success_b=("success_b", "mean"),
        capability_a=("capability_a", "first"),
        capability_b=("capability_b", "first"),
        a_wins=("a_wins", "sum"),
        b_wins=("b_wins", "sum"),
        decisive=("decisive", "sum"),
        misselected=("missel", "sum"),
    )
    out = []
    rows: dict[Any, dict[Any, Any]] = grouped.to_dict("index")
    for (a, b), row in rows.items():
        judge_says = np.sign(row["a_wins"] - row["b_wins"])
        truth = np.sign(row["capability_a"] - row["capability_b"])
        out.append(
            {
                "agent_a": a,
                "agent_b": b,
                "pairs": int(row["pairs"]),
                "success_rate_a": float(row["success_a"]),
                "success_rate_b": float(row["success_b"]),
                "capability_gap": abs(float(row["capability_a"] - row["capability_b"])),
                "judge_win_rate_a": float(row["a_wins"] / row["pairs"]),
                "judge_win_rate_b": float(row["b_wins"] / row["pairs"]),
                "decisive": int(row["decisive"]),
                "misselected": int(row["misselected"]),
                **_rate(int(row["misselected"]), int(row["decisive"])),
                "ranking_misselected": bool(judge_says != 0 and truth != 0 and judge_says != truth),
            }
        )
    return out


def satisfied_but_failed(pairs: pd.DataFrame, threshold: float = SATISFIED_AT) -> dict[str, Any]:
    """P(task failed | judge satisfied) and P(task failed | user simulator satisfied)."""
    sides = pd.concat(
        [
            pd.DataFrame(
                {
                    "pair_id": pairs["pair_id"],
                    "side": "A",
                    "agent": pairs["agent_a"],
                    "score": pairs["judge_score_a"],
                    "user": pairs["satisfied_a"],
                    "success": pairs["success_a"],
                }
            ),
            pd.DataFrame(
                {
                    "pair_id": pairs["pair_id"],
                    "side": "B",
                    "agent": pairs["agent_b"],
                    "score": pairs["judge_score_b"],
                    "user": pairs["satisfied_b"],
                    "success": pairs["success_b"],
                }
            ),
        ],
        ignore_index=True,
    )
    judge_sat = sides["score"] >= threshold
    user_sat = sides["user"].fillna(0).astype(int) == 1
    failed = sides["success"].astype(int) == 0

    def part(mask: pd.Series) -> dict[str, Any]:
        n, k = int(mask.sum()), int((mask & failed).sum())
        return {"satisfied": n, "failed": k, **_rate(k, n)}

    # The original crosstab: the judge scores A higher but success does not support A.
    crosstab = pairs[
        (pairs["judge_score_a"] > pairs["judge_score_b"])
        & ~(pairs["success_a"] > pairs["success_b"])
    ]
    examples = pairs[
        ((pairs["judge_score_a"] >= threshold) & (pairs["success_a"] == 0))
        | ((pairs["judge_score_b"] >= threshold) & (pairs["success_b"] == 0))
    ]
    return {
        "threshold": threshold,
        "judge": part(judge_sat),
        "user_simulator": part(user_sat),
        "judge_prefers_a_unsupported": len(crosstab),
        "pairs": examples["pair_id"].head(200).tolist(),
    }


def position_bias(pairs: pd.DataFrame) -> list[dict[str, Any]]:
    """Swap consistency and, among inconsistent verdicts, how often the first-shown side won."""
    swapped = pairs[pairs["pref_ba"].notna()]
    out = []
    for model, group in swapped.groupby("judge_model", sort=True):
        # The stored flag, not pref_ab == pref_ba: two unparsable orders are both "tie" but
        # are not a consistent verdict.
        agree = group["consistent"].fillna(0).astype(int) == 1
        consistent = int(agree.sum())
        inconsistent = group[~agree]
        # In order AB the first shown is A; in order BA it is B (pref_ba is already mapped back).
        first_wins = int(
            (inconsistent["pref_ab"] == "A").sum() + (inconsistent["pref_ba"] == "B").sum()
        )
        decided = int(
            (inconsistent["pref_ab"] != "tie").sum() + (inconsistent["pref_ba"] != "tie").sum()
        )
        n = len(group)
        out.append(
            {
                "judge_model": model,
                "pairs": n,
                "consistent": consistent,
                "consistency_rate": consistent / n if n else None,
                "inconsistent": len(inconsistent),
                "first_position_wins": first_wins,
                "decided_in_inconsistent": decided,
                "first_position_win_rate": first_wins / decided if decided else None,
            }
        )
    return out


def breakdown(pairs: pd.DataFrame, keys: list[str]) -> list[dict[str, Any]]:
    frame = pairs.assign(
        decisive=decisive_mask(pairs).astype(int), missel=pairs["misselected"].fillna(0).astype(int)
    )
    grouped = frame.groupby(keys, sort=True).agg(
        pairs=("pair_id", "size"),
        decisive=("decisive", "sum"),
        misselected=("missel", "sum"),
        consistent=("consistent", "mean"),
    )
    out = []
    table: dict[Any, dict[Any, Any]] = grouped.to_dict("index")
    for key, row in table.items():
        values = key if isinstance(key, tuple) else (key,)
        out.append(
            {
                **dict(zip(keys, values, strict=True)),
                "pairs": int(row["pairs"]),
                "decisive": int(row["decisive"]),
                "misselected": int(row["misselected"]),
                "consistency_rate": nan_to_none(float(row["consistent"])),
                **_rate(int(row["misselected"]), int(row["decisive"])),
            }
        )
    return out

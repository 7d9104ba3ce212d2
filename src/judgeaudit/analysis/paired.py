"""Per-bucket misselection change between two runs: paired when they judged the same
trajectory pairs (a re-judge), independent samples otherwise; the gate is Holm-adjusted.

Paired: each decisive pair is misselected or not in each run, so the change is the difference
of two correlated proportions: Newcombe's (1998) paired method 10 interval, McNemar's exact
test on the pairs that flipped, and a task-clustered bootstrap interval beside them.
Unpaired: Newcombe's hybrid score interval and Fisher's exact test, as independent samples.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from judgeaudit.analysis.frame import decisive_mask, gap_series
from judgeaudit.analysis.stats import (
    cluster_bootstrap,
    fisher_exact,
    holm,
    mcnemar_exact,
    newcombe_diff,
    newcombe_paired,
)

ALPHA = 0.05
FLIPPED_SHOWN = 200
KEY = ["task_id", "trial", "agent_a", "agent_b"]
PAIRED_METHOD = {
    "interval": "Newcombe (1998) paired method 10, 95%",
    "test": "McNemar exact, two-sided",
    "bootstrap": "task-clustered Poisson bootstrap (percentile) of the paired difference, 95%",
}
UNPAIRED_METHOD = {
    "interval": "Newcombe (1998) hybrid score (method 10), 95%, independent samples",
    "test": "Fisher exact, two-sided",
    "bootstrap": None,
}


def pair_key(frame: pd.DataFrame) -> pd.Series:
    """TASK/tTRIAL/A~B: a pair's id without its run, the same in both runs."""
    return (
        frame["task_id"].astype(str)
        + "/t"
        + frame["trial"].fillna(0).astype(int).astype(str)
        + "/"
        + frame["agent_a"].astype(str)
        + "~"
        + frame["agent_b"].astype(str)
    )


def paired_rows(
    base: pd.DataFrame,
    new: pd.DataFrame,
    source: str,
    bins: list[float],
    labels: list[str],
) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """Bucket rows, the overall row and how the pairs matched. Buckets follow the base run's
    gap, so a pair is counted in the same bucket in both runs."""
    left = base.assign(
        bucket=pd.cut(gap_series(base, source), bins=bins, labels=labels),
        decisive=decisive_mask(base),
        missel=base["misselected"].fillna(0).astype(int),
    )
    right = new.assign(decisive=decisive_mask(new), missel=new["misselected"].fillna(0).astype(int))
    columns = ["success_a", "success_b", "decisive", "missel"]
    merged = left[[*KEY, "bucket", *columns]].merge(
        right[[*KEY, *columns]], on=KEY, suffixes=("_before", "_after")
    )
    same_labels = (merged["success_a_before"] == merged["success_a_after"]) & (
        merged["success_b_before"] == merged["success_b_after"]
    )
    usable = merged[same_labels & merged["decisive_before"]].assign(key=lambda f: pair_key(f))
    pairing = {
        "matched": len(merged),
        "only_in_a": len(base) - len(merged),
        "only_in_b": len(new) - len(merged),
        "success_labels_differ": int((~same_labels).sum()),
        "decisive": len(usable),
    }
    rows = []
    for index, label in enumerate(labels):
        part = usable[usable["bucket"] == label]
        rows.append({"label": label, "lo": bins[index], "hi": bins[index + 1], **_paired(part)})
    overall = {"label": "overall", **_paired(usable)}
    return rows, overall, pairing


def _paired(part: pd.DataFrame) -> dict[str, Any]:
    before, after = part["missel_before"] == 1, part["missel_after"] == 1
    both, to_correct = int((before & after).sum()), int((before & ~after).sum())
    to_missel, neither = int((~before & after).sum()), int((~before & ~after).sum())
    n = len(part)
    diff, low, high = newcombe_paired(both, to_correct, to_missel, neither)
    per_task = (
        part.assign(d=part["missel_after"] - part["missel_before"], one=1)
        .groupby("task_id")[["d", "one"]]
        .sum()
    )
    boot_low, boot_high = (
        cluster_bootstrap(per_task["d"].tolist(), per_task["one"].tolist()) if n else (None, None)
    )
    return {
        "before": (both + to_correct) / n if n else None,
        "n_before": n,
        "after": (both + to_missel) / n if n else None,
        "n_after": n,
        "change": diff,
        "ci_low": low,
        "ci_high": high,
        "p_value": mcnemar_exact(to_correct, to_missel),
        "testable": to_correct + to_missel > 0,
        "paired": {
            "both_misselected": both,
            "neither": neither,
            "flipped_to_misselected": to_missel,
            "flipped_to_correct": to_correct,
            "boot_low": boot_low,
            "boot_high": boot_high,
            "flipped_to_misselected_ids": part.loc[~before & after, "key"]
            .head(FLIPPED_SHOWN)
            .tolist(),
            "flipped_to_correct_ids": part.loc[before & ~after, "key"].head(FLIPPED_SHOWN).tolist(),
        },
    }


def unpaired_rows(
    before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Bucket rows and the overall row from the two runs' own bucket tables."""
    rows = [
        {"label": b["label"], "lo": b["lo"], "hi": b["hi"], **_unpaired(b, a)}
        for b, a in zip(before, after, strict=True)
    ]

    def total(buckets: list[dict[str, Any]]) -> dict[str, Any]:
        k = sum(b["misselected"] for b in buckets)
        n = sum(b["decisive"] for b in buckets)
        return {"misselected": k, "decisive": n, "rate": k / n if n else None}

    return rows, {"label": "overall", **_unpaired(total(before), total(after))}


def _unpaired(b: dict[str, Any], a: dict[str, Any]) -> dict[str, Any]:
    diff, low, high = newcombe_diff(
        b["misselected"], b["decisive"], a["misselected"], a["decisive"]
    )
    return {
        "before": b["rate"],
        "n_before": b["decisive"],
        "after": a["rate"],
        "n_after": a["decisive"],
        "change": diff,
        "ci_low": low,
        "ci_high": high,
        "p_value": fisher_exact(b["misselected"], b["decisive"], a["misselected"], a["decisive"]),
        "testable": b["decisive"] > 0 and a["decisive"] > 0,
        "paired": None,
    }


def gate(rows: list[dict[str, Any]], overall: dict[str, Any]) -> int:
    """Holm-adjust the p-values of the buckets and the overall row together (the testable ones
    form the family, so the gate's family-wise error stays at ALPHA) and flag rises and falls;
    returns the family size."""
    family = [r for r in [*rows, overall] if r["testable"]]
    for row, adjusted in zip(family, holm([r["p_value"] for r in family]), strict=True):
        row["p_adjusted"] = adjusted
    for row in [*rows, overall]:
        row.setdefault("p_adjusted", None)
        significant = row["p_adjusted"] is not None and row["p_adjusted"] < ALPHA
        change = row["change"] or 0.0
        row["significant_rise"] = bool(significant and change > 0)
        row["significant_fall"] = bool(significant and change < 0)
    return len(family)

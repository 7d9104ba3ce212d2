"""Per-bucket misselection change between two runs: paired when they judged the same
trajectory pairs (a re-judge), independent samples otherwise.

Paired: each decisive pair is misselected or not in each run; pairs of one task share its
trajectories, so the interval, the test and the non-inferiority bound are task-clustered (see
``analysis/noninferiority.py``); McNemar's exact p and Newcombe's interval stay in the JSON for
reference. Unpaired: Newcombe's hybrid score interval and Fisher's exact test, for information
only: seed-to-seed variation dwarfs their binomial error, so the gate refuses them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.clustered import METHOD as clustered_method
from judgeaudit.analysis.clustered import Sums, interval
from judgeaudit.analysis.frame import decisive_mask, gap_series
from judgeaudit.analysis.gate_ties import decided
from judgeaudit.analysis.split import tie_halves
from judgeaudit.analysis.stats import (
    fisher_exact,
    mcnemar_exact,
    newcombe_diff,
    newcombe_paired,
    weighted_holm,
)

ALPHA = ni.ALPHA
FLIPPED_SHOWN = 200
#: A pair's identity across runs: side B's trial too (a trial-paired import pairs t0~t1, t0~t2, ...).
KEY = ["task_id", "trial", "trial_b", "agent_a", "agent_b"]
#: How each run's own rate (``before``, ``after``) gets its interval: the report's rule.
RATES_METHOD = f"95% {clustered_method}; each run's rate over the rows' pairs"
PAIRED_METHOD = {
    "rates": RATES_METHOD,
    "interval": "task-clustered (CR1) t interval of the paired difference, 95%, per row "
    "(not simultaneous)",
    "test": "exact task-level sign-flip permutation test, one-sided (a rise; with one pair per "
    "task it is McNemar's exact test)",
    "bound": "one-sided 95% upper bound: the larger of the task-clustered t limit and the "
    "exact (Clopper-Pearson) flip-to-misselected bound less the flip-to-correct share",
}
UNPAIRED_METHOD = {
    "rates": RATES_METHOD,
    "interval": "Newcombe (1998) hybrid score (method 10), 95%, independent samples",
    "test": "Fisher exact, two-sided (for information: unpaired runs are not gated)",
    "bound": None,
}


def with_trials(frame: pd.DataFrame) -> pd.DataFrame:
    """``trial`` and ``trial_b`` as ints, side B's trial being side A's where not stored."""
    trial = frame["trial"].fillna(0).astype(int)
    trial_b = frame["trial_b"] if "trial_b" in frame else pd.Series(None, index=frame.index)
    return frame.assign(trial=trial, trial_b=trial_b.fillna(trial).astype(int))


def pair_key(frame: pd.DataFrame) -> pd.Series:
    """TASK/tTRIAL/A~B (TASK/tN~tM/A~A for two trials of one agent): a pair's id without its
    run, the same in both runs (the tail of its pair id, which ``show`` accepts)."""
    trial, trial_b = frame["trial"].astype(str), frame["trial_b"].astype(str)
    trials = ("t" + trial).where(trial == trial_b, "t" + trial + "~t" + trial_b)
    return (
        frame["task_id"].astype(str)
        + "/"
        + trials
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
    base, new = with_trials(base), with_trials(new)
    left = base.assign(
        bucket=pd.cut(gap_series(base, source), bins=bins, labels=labels),
        decisive=decisive_mask(base),
        missel=base["misselected"].fillna(0).astype(int),
    )
    right = new.assign(decisive=decisive_mask(new), missel=new["misselected"].fillna(0).astype(int))
    columns = ["success_a", "success_b", "decisive", "missel", "judge_pref"]
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
    overall = {"label": "overall", **_paired(usable), "tie_aware": tie_aware_change(usable)}
    return rows, overall, pairing


def _paired(part: pd.DataFrame) -> dict[str, Any]:
    before, after = part["missel_before"] == 1, part["missel_after"] == 1
    both, to_correct = int((before & after).sum()), int((before & ~after).sum())
    to_missel, neither = int((~before & after).sum()), int((~before & ~after).sum())
    n = len(part)
    per_task = (
        part.assign(d=part["missel_after"] - part["missel_before"], one=1)
        .groupby("task_id")[["d", "one", "missel_before", "missel_after"]]
        .sum()
    )
    sums, counts = per_task["d"].astype(int).tolist(), per_task["one"].astype(int).tolist()
    before_sums = Sums.of(list(zip(per_task["missel_before"].tolist(), counts, strict=True)))
    after_sums = Sums.of(list(zip(per_task["missel_after"].tolist(), counts, strict=True)))
    spread = ni.clustered(sums, counts)
    newcombe = newcombe_paired(both, to_correct, to_missel, neither)
    return {
        "before": (both + to_correct) / n if n else None,
        "n_before": n,
        "after": (both + to_missel) / n if n else None,
        "n_after": n,
        "ci_before": side_interval(interval(before_sums)),
        "ci_after": side_interval(interval(after_sums)),
        "change": spread.change if n else None,
        "ci_low": spread.low,
        "ci_high": spread.high,
        "p_value": ni.signflip_p(sums),
        # a fall by the same test, one-sided (what "fall" is flagged on, per row)
        "p_fall": ni.signflip_p([-s for s in sums]),
        "testable": to_correct + to_missel > 0,
        "tasks": spread.tasks,
        "se": spread.se,
        # the change's standard error under the sign-flip null: sqrt(sum S_t^2) / n
        "null_se": math.sqrt(sum(s * s for s in sums)) / n if n else None,
        "upper": ni.ni_bound(spread, to_missel, to_correct),
        "upper_t": spread.upper,
        "deff": ni.design_effect(spread, to_correct + to_missel),
        # right / tie / wrong moves, and misselection over the pairs both runs decided
        "decided": decided(part),
        "paired": {
            "both_misselected": both,
            "neither": neither,
            "flipped_to_misselected": to_missel,
            "flipped_to_correct": to_correct,
            "mcnemar_p": mcnemar_exact(to_correct, to_missel),
            "newcombe_low": newcombe[1],
            "newcombe_high": newcombe[2],
            "flipped_to_misselected_ids": part.loc[~before & after, "key"]
            .head(FLIPPED_SHOWN)
            .tolist(),
            "flipped_to_correct_ids": part.loc[before & ~after, "key"].head(FLIPPED_SHOWN).tolist(),
        },
    }


#: The tie-aware criterion's "worse" is tested at the overall row's starting share of alpha, on
#: its own (beside the misselection family): a false "worse" on either is at most
#: :data:`FALSE_WORSE_AT_MOST` by Bonferroni; bench/gate_calibration_inprocess.py measures it.
TIE_AWARE_ALPHA_SHARE = 0.5
#: The chance that an unchanged judge is called worse on misselection (the family, ALPHA) or on
#: the tie-aware rate (its share), at most (Bonferroni): the one figure the docs and the gate's
#: "at this size" line quote (the no-verdict rise test adds its own, ``gate_verdicts``).
FALSE_WORSE_AT_MOST = ALPHA * (1 + TIE_AWARE_ALPHA_SHARE)


def tie_aware_change(part: pd.DataFrame) -> dict[str, Any]:
    """The paired change of the tie-aware rate (split.py's ``(wrong + tie/2) / decisive``) over
    these decisive pairs, by the misselection row's machinery in half-units: per pair the
    score moves by -2..+2 halves, per task the halves sum to an integer for the sign-flip test
    and the task-clustered interval; the rare-flip floor counts each half step as one of 2n.
    A judge that stops deciding (every answer a tie) moves no misselection but raises this."""
    n = len(part)
    before = tie_halves(part["missel_before"], part["judge_pref_before"], part["success_a_before"])
    after = tie_halves(part["missel_after"], part["judge_pref_after"], part["success_a_after"])
    d = after - before
    missel = part["missel_after"] - part["missel_before"]
    per_task = (
        part.assign(d=d, m=missel, one=1, b=before, a=after)
        .groupby("task_id")[["d", "m", "one", "b", "a"]]
        .sum()
    )
    sums, counts = per_task["d"].astype(int).tolist(), per_task["one"].astype(int).tolist()

    def rate_ci(halves: pd.Series) -> list[float | None]:
        # each run's rate over these pairs by the report's rule (split.three_way's interval of
        # the 0 / 1/2 / 1 score): the interval every other rate compare prints has
        return side_interval(interval(Sums.of(list(zip(halves / 2, counts, strict=True)))))

    spread = ni.clustered(sums, counts)
    up, down = int(d[d > 0].sum()), int(-d[d < 0].sum())
    floor = ni.cp_upper(up, 2 * n) - down / (2 * n) if n else None
    upper = (
        None if floor is None else floor if spread.upper is None else max(spread.upper / 2, floor)
    )

    def half(x: float | None) -> float | None:
        return None if x is None else x / 2

    return {
        "before": int(before.sum()) / (2 * n) if n else None,
        "after": int(after.sum()) / (2 * n) if n else None,
        "ci_before": rate_ci(per_task["b"]) if n else [None, None],
        "ci_after": rate_ci(per_task["a"]) if n else [None, None],
        "n": n,
        "change": half(spread.change) if n else None,
        "ci_low": half(spread.low),
        "ci_high": half(spread.high),
        "upper": upper,
        "p_value": ni.signflip_p(sums),
        # a fall by the same test (gate_ties: a misselection rise from deciding A's ties)
        "p_fall": ni.signflip_p([-s for s in sums]),
        "alpha": ALPHA * TIE_AWARE_ALPHA_SHARE,
        "tasks": spread.tasks,
        "half_steps_up": up,
        "half_steps_down": down,
        "null": null_spread(per_task["m"].astype(float), per_task["d"] / 2, n),
    }


def null_spread(missel: pd.Series, tie: pd.Series, n: int) -> dict[str, float | None]:
    """The tie-aware change's spread under the sign-flip null, from the per-task sums of both
    changes (each task's two sums keep or flip their signs together): its standard error
    sqrt(sum T_t^2) / n and its correlation with misselection's, sum S_t T_t / sqrt(sum S_t^2
    sum T_t^2), exact moments of the tests' own null; what the gate's chance of passing an
    unchanged judge on both criteria is planned from (misselection's own: the row's
    ``null_se``)."""
    ss_m, ss_t = float((missel**2).sum()), float((tie**2).sum())
    if not n or not ss_t:
        return {"se": None, "correlation": None}
    return {
        "se": ss_t**0.5 / n,
        "correlation": float((missel * tie).sum()) / (ss_m * ss_t) ** 0.5 if ss_m else 0.0,
    }


def side_interval(found: Mapping[str, Any]) -> list[float | None]:
    """One run's rate interval as ``[low, high]``: the report's own rule for every rate it prints
    (:mod:`judgeaudit.analysis.clustered`), so a chart of the two rates shows what ``report``
    shows for each."""
    return [found.get("ci_low"), found.get("ci_high")]


def unpaired_rows(
    before: Sequence[Mapping[str, Any]],
    after: Sequence[Mapping[str, Any]],
    overall_before: Mapping[str, Any] | None = None,
    overall_after: Mapping[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Bucket rows and the overall row from the two runs' own bucket tables; each rate keeps its
    run's interval (the report's overall row's, when it counts the same decisive pairs)."""
    rows = [
        {"label": b["label"], "lo": b["lo"], "hi": b["hi"], **_unpaired(b, a)}
        for b, a in zip(before, after, strict=True)
    ]

    def total(
        buckets: Sequence[Mapping[str, Any]], row: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        k = sum(b["misselected"] for b in buckets)
        n = sum(b["decisive"] for b in buckets)
        same = row is not None and row.get("decisive") == n and n > 0
        found: Mapping[str, Any] = row if same and row is not None else {}
        return {"misselected": k, "decisive": n, "rate": k / n if n else None, **{
            "ci_low": found.get("ci_low"), "ci_high": found.get("ci_high")}}  # fmt: skip

    overall = _unpaired(total(before, overall_before), total(after, overall_after))
    return rows, {"label": "overall", **overall}


def _unpaired(b: Mapping[str, Any], a: Mapping[str, Any]) -> dict[str, Any]:
    diff, low, high = newcombe_diff(
        b["misselected"], b["decisive"], a["misselected"], a["decisive"]
    )
    return {
        "before": b["rate"],
        "n_before": b["decisive"],
        "after": a["rate"],
        "n_after": a["decisive"],
        "ci_before": side_interval(b),
        "ci_after": side_interval(a),
        "change": diff,
        "ci_low": low,
        "ci_high": high,
        "p_value": fisher_exact(b["misselected"], b["decisive"], a["misselected"], a["decisive"]),
        "testable": b["decisive"] > 0 and a["decisive"] > 0,
        "paired": None,
    }


#: The gate's own question ("is the new judge worse overall?") holds this share of the
#: family's alpha; the buckets with flips share the rest (where it is worse). Plain Holm over
#: the five rows left the overall row alpha/5 at worst: a +11.3-point rise at p=0.016 was
#: "inconclusive" (a new user's trial). ``None`` is plain Holm, kept for the calibration bench.
OVERALL_SHARE = 0.5
MULTIPLICITY = (
    "weighted Holm across the {family} tests with data: the overall row holds half of alpha "
    "{alpha}, the buckets with data share the other half, and a rejected row's share passes "
    "to the rest"
)
#: When only the overall row, or only buckets, have data, the shares are equal (plain Holm).
MULTIPLICITY_EQUAL = (
    "Holm across the {family} tests with data (equal shares: {alone}), alpha {alpha}"
)


def family_weights(
    family: Sequence[Mapping[str, Any]], overall: Mapping[str, Any], share: float | None
) -> list[float]:
    """Each testable row's share of alpha: ``share`` for the overall row and the rest split
    evenly over the buckets (all of it to whichever side is alone); equal when ``share`` is
    None."""
    buckets = sum(1 for row in family if row is not overall)
    if share is None or buckets == 0 or len(family) == buckets:
        return [1.0 / len(family)] * len(family)
    return [share if row is overall else (1.0 - share) / buckets for row in family]


def gate(
    rows: list[dict[str, Any]], overall: dict[str, Any], share: float | None = OVERALL_SHARE
) -> int:
    """Adjust the one-sided p-values of the buckets and the overall row together by weighted
    Holm (:data:`OVERALL_SHARE`; the testable rows form the family, so "worse" keeps its
    family-wise error at ALPHA), and flag rises (significant after adjustment) and falls
    (:func:`fell`, per row); returns the family size."""
    family = [r for r in [*rows, overall] if r["testable"]]
    weights = family_weights(family, overall, share) if family else []
    adjusted = weighted_holm([r["p_value"] for r in family], weights)
    for row, p_adjusted, weight in zip(family, adjusted, weights, strict=True):
        row["p_adjusted"], row["alpha_share"] = p_adjusted, weight
    for row in [*rows, overall]:
        row.setdefault("p_adjusted", None)
        row.setdefault("alpha_share", None)
        significant = row["p_adjusted"] is not None and row["p_adjusted"] < ALPHA
        change = row["change"] or 0.0
        row["significant_rise"] = bool(significant and change > 0)
        row["significant_fall"] = fell(row)
    return len(family)


#: A row's fall is flagged where its one-sided task-level sign-flip test of a fall is below
#: this: the other tail of a per-row 95% statement, as the tie-aware ``p_fall`` is read.
FALL_ALPHA = 0.025


def fell(row: Mapping[str, Any]) -> bool:
    """A paired row's fall: its sign-flip test (``p_fall``), which a row whose tasks all moved
    alike still has where its CR1 interval has no spread (4 tasks alike is p = 1/16, no fall;
    20 is p < 1e-6); an unpaired row's: its interval below 0."""
    if row.get("p_fall") is not None:
        return bool(row["p_fall"] < FALL_ALPHA and (row["change"] or 0.0) < 0)
    return bool(row["ci_high"] is not None and row["ci_high"] < 0)


def multiplicity_text(rows: list[dict[str, Any]], overall: dict[str, Any], family: int) -> str:
    """How the rows' p-values were adjusted, as :func:`gate` did it (``family`` its size)."""
    if not family:
        return "no adjustment: no row has data to test (nothing flipped)"
    buckets = sum(1 for r in rows if r["testable"])
    if buckets and overall["testable"]:
        return MULTIPLICITY.format(family=family, alpha=ALPHA)
    alone = "only the overall row has data" if overall["testable"] else "only buckets have data"
    return MULTIPLICITY_EQUAL.format(family=family, alone=alone, alpha=ALPHA)

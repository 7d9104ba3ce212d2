"""The report's sections summed from the scans' typed rows (:mod:`judgeaudit.analysis.grouped`,
and the (bucket, task) scan in :mod:`judgeaudit.analysis.aggregate`): buckets, agent pairs,
satisfied-but-failed, position bias and the breakdowns, each rate with its Wilson interval."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from judgeaudit.analysis.engines.dialect import Pairs
from judgeaudit.analysis.frame import LABELS_EN, LABELS_ZH
from judgeaudit.analysis.grouped import JudgeSums, ModelSums, TypeSums
from judgeaudit.analysis.report_types import (
    AgentPair,
    Breakdown,
    Bucket,
    Interval,
    PositionBias,
    Satisfied,
    SatisfiedButFailed,
)
from judgeaudit.analysis.stats import wilson


def wilson_rate(k: int, n: int) -> Interval:
    low, high = wilson(k, n)
    return {"rate": k / n if n else None, "ci_low": low, "ci_high": high}


def as_count(value: Any) -> int:
    """A SQL sum as a count (NULL, the sum over no row, is 0)."""
    return int(value or 0)


@dataclass
class BucketCount:
    """One bucket's pairs, decisive pairs and misselected pairs, summed over its tasks."""

    pairs: int = 0
    decisive: int = 0
    missel: int = 0


def sum_buckets(
    counts: dict[int, BucketCount],
    bins: list[float],
    labels: list[str],
    boots: dict[int, tuple[Any, Any]],
) -> list[Bucket]:
    out: list[Bucket] = []
    for index, label in enumerate(labels):
        count = counts.get(index, BucketCount())
        pairs, n, k = count.pairs, count.decisive, count.missel
        alias = LABELS_EN[LABELS_ZH.index(label)] if label in LABELS_ZH else label
        rate = wilson_rate(k, n)
        out.append(
            {
                "label": label,
                "alias": alias,
                "lo": bins[index],
                "hi": bins[index + 1],
                "pairs": pairs,
                "decisive": n,
                "misselected": k,
                "rate": rate["rate"],
                "ci_low": rate["ci_low"],
                "ci_high": rate["ci_high"],
                "boot_low": boots.get(index, (None, None))[0],
                "boot_high": boots.get(index, (None, None))[1],
            }
        )
    return out


def sum_agent_pairs(rows: list[ModelSums]) -> list[AgentPair]:
    groups: dict[tuple[str, str], list[Any]] = {}
    for r in rows:
        cap_a, cap_b = r.min_capability_a, r.min_capability_b
        g = groups.setdefault((r.agent_a, r.agent_b), [0, 0, 0, 0, 0, None, None, 0, 0])
        for i, value in enumerate((r.pairs, r.decisive, r.missel, r.success_a, r.success_b)):
            g[i] += as_count(value)
        g[5] = cap_a if g[5] is None or (cap_a is not None and cap_a < g[5]) else g[5]
        g[6] = cap_b if g[6] is None or (cap_b is not None and cap_b < g[6]) else g[6]
        g[7] += as_count(r.judge_prefers_a)
        g[8] += as_count(r.judge_prefers_b)
    out: list[AgentPair] = []
    for (a, b), (pairs, decisive, missel, sa, sb, cap_a, cap_b, a_wins, b_wins) in sorted(
        groups.items()
    ):
        judge_says = (a_wins > b_wins) - (a_wins < b_wins)
        known = cap_a is not None and cap_b is not None
        truth = (cap_a > cap_b) - (cap_a < cap_b) if known else 0
        rate = wilson_rate(missel, decisive)
        out.append(
            {
                "agent_a": a,
                "agent_b": b,
                "pairs": pairs,
                "success_rate_a": sa / pairs,
                "success_rate_b": sb / pairs,
                "capability_gap": abs(cap_a - cap_b) if known else None,
                "judge_win_rate_a": a_wins / pairs,
                "judge_win_rate_b": b_wins / pairs,
                "decisive": decisive,
                "misselected": missel,
                "rate": rate["rate"],
                "ci_low": rate["ci_low"],
                "ci_high": rate["ci_high"],
                "ranking_misselected": bool(judge_says != 0 and truth != 0 and judge_says != truth),
            }
        )
    return out


def sum_satisfied_but_failed(
    db: Pairs, run_id: str, threshold: float, rows: list[JudgeSums]
) -> SatisfiedButFailed:
    judge_n = sum(as_count(r.judge_satisfied) for r in rows)
    judge_k = sum(as_count(r.judge_failed) for r in rows)
    user_n = sum(as_count(r.user_satisfied) for r in rows)
    user_k = sum(as_count(r.user_failed) for r in rows)
    crosstab = sum(as_count(r.unsupported_a) for r in rows)
    t = float(threshold)
    examples = [
        r[0]
        for r in db.execute(
            "SELECT pair_id FROM audit_pairs WHERE run_id = ? AND ((judge_score_a >= ? AND"
            f" success_a = 0) OR (judge_score_b >= ? AND success_b = 0)) ORDER BY {db.dialect.seq}"
            " LIMIT 200",
            (run_id, t, t),
        )
    ]
    out: SatisfiedButFailed = {
        "threshold": threshold,
        "judge": satisfied(judge_n, judge_k),
        "user_simulator": satisfied(user_n, user_k),
        "judge_prefers_a_unsupported": crosstab,
        "pairs": examples,
    }
    if judge_n == 0:  # none satisfied: a judge on a 0-1 scale says why (one scan, only then)
        from judgeaudit.audit.inputs.verdict_rules import low_scale

        a, b, top_a, top_b = next(
            iter(
                db.execute(
                    "SELECT COUNT(judge_score_a), COUNT(judge_score_b), MAX(judge_score_a),"
                    " MAX(judge_score_b) FROM audit_pairs WHERE run_id = ?",
                    (run_id,),
                )
            )
        )
        tops = [float(t) for t in (top_a, top_b) if t is not None]
        note = low_scale(int(a) + int(b), max(tops, default=None))
        if note is not None:
            out["scale_note"] = note
    return out


def satisfied(n: int, k: int) -> Satisfied:
    rate = wilson_rate(k, n)
    return {
        "satisfied": n,
        "failed": k,
        "rate": rate["rate"],
        "ci_low": rate["ci_low"],
        "ci_high": rate["ci_high"],
    }


def sum_position_bias(rows: list[JudgeSums]) -> list[PositionBias]:
    out: list[PositionBias] = []
    for row in rows:
        model = row.judge_model
        n, consistent, inconsistent, first_wins, decided = map(
            as_count, (row.swapped, row.consistent, row.inconsistent, row.first_wins, row.decided)
        )
        if model is None or n == 0:
            continue
        out.append(
            {
                "judge_model": model,
                "pairs": n,
                "consistent": consistent,
                "consistency_rate": consistent / n,
                "inconsistent": inconsistent,
                "first_position_wins": first_wins,
                "decided_in_inconsistent": decided,
                "first_position_win_rate": first_wins / decided if decided else None,
            }
        )
    return out


#: the counts a breakdown row sums
_COUNTS = ("pairs", "decisive", "missel", "sum_consistent", "n_consistent")


def sum_breakdown(rows: Sequence[ModelSums | TypeSums], keys: tuple[str, ...]) -> list[Breakdown]:
    """Group the pre-grouped rows by ``keys`` (rows with a NULL key are left out, as pandas does)."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for row in rows:
        key = tuple(getattr(row, k) for k in keys)
        if any(k is None for k in key):
            continue
        g = groups.setdefault(key, [0, 0, 0, 0, 0])
        for i, name in enumerate(_COUNTS):
            g[i] += as_count(getattr(row, name))
    out: list[Breakdown] = []
    for key, (pairs, decisive, missel, sum_consistent, n_consistent) in sorted(groups.items()):
        # the key columns first (dynamic names), then the counts: the JSON's key order
        named = cast(Breakdown, dict(zip(keys, key, strict=True)))
        out.append(
            {
                **named,
                "pairs": pairs,
                "decisive": decisive,
                "misselected": missel,
                "consistency_rate": sum_consistent / n_consistent if n_consistent else None,
                **wilson_rate(missel, decisive),
            }
        )
    return out

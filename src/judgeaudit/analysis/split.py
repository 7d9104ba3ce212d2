"""The report's figures in their right units, each with a task-clustered interval.

- **Three-way split** wherever a misselection rate appears: of the decisive pairs, the judge was
  ``right``, ``wrong`` (the seed's ``misselected``) or gave a ``tie`` (its two orders disagreed
  or a verdict was missing). A judge can lower its misselection rate by being inconsistent, so
  the *tie-aware rate* ``(wrong + tie / 2) / decisive`` (a tie scored as half a loss, as Arena
  scores it) is reported beside it.
- **Position bias** and **swap consistency** (:mod:`judgeaudit.analysis.position`), swap
  consistency per breakdown row too.
- **Satisfied-but-failed** per conversation for the user simulator (a conversation is in many
  pairs but was satisfied once) and per judged conversation side for the judge.

Every rate's interval is :mod:`judgeaudit.analysis.clustered`'s design-effect Wilson.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from judgeaudit.analysis.clustered import (
    METHOD,
    PAIRS,
    Sums,
    as_int,
    grouped_parts,
    grouped_sums,
    interval,
)
from judgeaudit.analysis.engines.dialect import Pairs, as_pairs
from judgeaudit.analysis.gap_model import gap_model
from judgeaudit.analysis.position import CONSISTENT, JUDGED_BOTH, ci_of, position_bias
from judgeaudit.analysis.report_types import (
    SHARE_NAMES,
    AgentPair,
    Breakdown,
    Bucket,
    Clustered,
    PairShares,
    Ranking,
    Report,
    Satisfied,
    SatisfiedParts,
    Split,
)
from judgeaudit.analysis.stats import mcnemar_exact
from judgeaudit.audit.store.schema import is_decisive
from judgeaudit.audit.units import gap as gaps

#: Conditions, then the 0/1 counts summed (``CAST``: the SQL text every engine reads alike).
IS_DEC = is_decisive()
IS_WRONG = f"({IS_DEC} AND COALESCE(misselected, 0) = 1)"
IS_RIGHT = (
    f"({IS_DEC} AND NOT {IS_WRONG} AND judge_pref = CASE WHEN success_a = 1 THEN 'A' ELSE 'B' END)"
)
DEC, WRONG, RIGHT = (as_int(c) for c in (IS_DEC, IS_WRONG, IS_RIGHT))
#: per decisive pair: 1 wrong, 0 right, 1/2 a tie
TIE_SCORE = (
    f"CAST(CASE WHEN NOT {IS_DEC} THEN 0 WHEN {IS_WRONG} THEN 1.0 WHEN {IS_RIGHT} THEN 0.0"
    " ELSE 0.5 END AS DOUBLE)"
)


def tie_halves(wrong: Any, pref: Any, success_a: Any) -> Any:
    """:data:`TIE_SCORE` per decisive pair in half-units, elementwise over pandas/numpy
    columns: 2 wrong, 0 right (``pref`` names the side that succeeded), 1 a tie or no verdict;
    integers, so a task's sum is exact (the gate's paired tie-aware criterion)."""
    import numpy as np

    right = np.asarray(pref, dtype=object) == np.where(np.asarray(success_a) == 1, "A", "B")
    return np.where(np.asarray(wrong) == 1, 2, np.where(right, 0, 1))


def three_way(sums: list[Sums] | None) -> Split:
    """``right``, ``wrong``, ``tie``, the misselection rate and the tie-aware rate, intervals."""
    if not sums:
        return {"right": 0, "wrong": 0, "tie": 0, "rate": None, "ci_low": None, "ci_high": None,
                "design_effect": None, "tie_aware_rate": None, "tie_aware_ci": None}  # fmt: skip
    wrong, right, score = sums
    decisive = int(wrong.n)
    tie_aware = interval(score)
    return {
        "right": int(right.k),
        "wrong": int(wrong.k),
        "tie": decisive - int(right.k) - int(wrong.k),
        **interval(wrong),
        "tie_aware_rate": tie_aware["rate"],
        "tie_aware_ci": [tie_aware["ci_low"], tie_aware["ci_high"]],
    }


Key = tuple[Any, ...]


def _split_by(
    db: Pairs, run_id: str, keys: list[str], agree: bool = False
) -> tuple[dict[Key, Split], dict[Key, Clustered]]:
    """The three-way split per group of ``keys`` and, with ``agree``, swap consistency in the
    same scan (``position``'s :data:`CONSISTENT` over :data:`JUDGED_BOTH`)."""
    parts = [([WRONG, RIGHT, TIE_SCORE], DEC), *([([CONSISTENT], JUDGED_BOTH)] if agree else [])]
    found = grouped_parts(db, keys, parts, PAIRS, (run_id,))
    splits = {key: three_way(sums[0]) for key, sums in found.items() if sums[0] is not None}
    agreed = {key: interval(got[0]) for key, sums in found.items() if agree and (got := sums[-1])}
    return splits, agreed


def bucket_splits(db: Pairs, run_id: str, source: str, bins: list[float]) -> dict[int, Split]:
    """Bucket index -> its three-way split (buckets without a decisive pair are absent)."""
    case, edges = gaps.bucket_case("g", bins)
    gap = db.dialect.gap(source)
    source_sql = f"(SELECT *, {gap} AS g FROM {PAIRS}{db.dialect.no_flatten}) AS b"
    sums = grouped_sums(db, [case], [WRONG, RIGHT, TIE_SCORE], DEC, source_sql, (*edges, run_id))
    return {int(k[0]): three_way(v) for k, v in sums.items() if k[0] is not None}


@dataclass(frozen=True)
class Splits:
    """:func:`report_splits`: the split of each row, and the breakdowns' swap consistency."""

    overall: dict[Key, Split]
    agent_pairs: dict[Key, Split]
    by_task_type: dict[Key, Split]
    by_models: dict[Key, Split]
    agree_by_task_type: dict[Key, Clustered]
    agree_by_models: dict[Key, Clustered]


def report_splits(
    db: Pairs,
    run_id: str,
    judges: Collection[Any] | None = None,
    task_types: Collection[Any] | None = None,
) -> Splits:
    """The split overall, per agent pair, per task type and per (agent pair, judge model), and
    swap consistency per task type and per (agent pair, judge model) in the same scans.

    ``judges`` and ``task_types``, when given, are every judge model and task type of the run's
    pairs, NULL included (:func:`distinct`). A run with one judge model has the same (agent pair, task)
    groups per (agent pair, judge model), so that split is the agent pairs' own, keyed with the
    model; one task type, likewise the overall split. Each is one task-clustered scan fewer (a
    fifth of DuckDB's report CPU on 1M pairs); the sums are exact, so every digit is the same."""
    one_type = task_types is not None and len(task_types) == 1
    one_judge = judges is not None and len(judges) == 1
    overall, overall_agree = _split_by(db, run_id, [], agree=one_type)
    agent_pairs, pairs_agree = _split_by(db, run_id, ["agent_a", "agent_b"], agree=one_judge)
    if task_types is not None and one_type:
        (only_type,) = task_types
        by_type = {(only_type,): overall[()]} if () in overall else {}
        type_agree = {(only_type,): overall_agree[()]} if () in overall_agree else {}
    else:
        by_type, type_agree = _split_by(db, run_id, ["task_type"], agree=True)
    if judges is not None and one_judge:
        (only_judge,) = judges
        by_models = {(*pair, only_judge): split for pair, split in agent_pairs.items()}
        models_agree = {(*pair, only_judge): found for pair, found in pairs_agree.items()}
    else:
        models = ["agent_a", "agent_b", "judge_model"]
        by_models, models_agree = _split_by(db, run_id, models, agree=True)
    return Splits(overall, agent_pairs, by_type, by_models, type_agree, models_agree)


#: An agent pair's shares over all its pairs (the report's point estimates): success of each
#: side and the judge's wins of each side (a tie or no verdict is in no side's wins).
PAIR_SHARES = dict(
    zip(
        SHARE_NAMES,
        map(as_int, ("success_a = 1", "success_b = 1", "judge_pref = 'A'", "judge_pref = 'B'")),
        strict=True,
    )
)


def pair_shares(db: Pairs, run_id: str) -> dict[tuple[Any, ...], PairShares]:
    """Per agent pair, the 95% interval of each of :data:`PAIR_SHARES` (``NAME_ci``: [low,
    high]): the pairs of one task share its trajectories, so they are clustered by task too."""
    sums = grouped_sums(
        db, ["agent_a", "agent_b"], list(PAIR_SHARES.values()), "1", PAIRS, (run_id,)
    )
    out: dict[tuple[Any, ...], PairShares] = {}
    for key, per in sums.items():
        sa, sb, wa, wb = ([f["ci_low"], f["ci_high"]] for f in map(interval, per))
        out[key] = {"success_rate_a_ci": sa, "success_rate_b_ci": sb,
                    "judge_win_rate_a_ci": wa, "judge_win_rate_b_ci": wb}  # fmt: skip
    return out


def distinct(db: Pairs, run_id: str, column: str) -> list[Any]:
    """Up to two distinct values of ``column`` among the run's pairs, NULL one of them (the
    report's breakdowns leave NULL keys out, so their rows cannot tell)."""
    rows = db.execute(f"SELECT DISTINCT {column} FROM {PAIRS} LIMIT 2", (run_id,))
    return [row[0] for row in rows]


#: Both sides of every pair as conversations: (task, agent, trial) names one conversation.
SIDES = (
    "(SELECT task_id, agent_a AS agent, trial, satisfied_a AS sat, success_a AS success"
    " FROM audit_pairs WHERE run_id = ? UNION ALL"
    " SELECT task_id, agent_b, COALESCE(trial_b, trial), satisfied_b, success_b"
    " FROM audit_pairs WHERE run_id = ?) AS s"
)


def satisfied_but_failed(db: Pairs, run_id: str, threshold: float) -> SatisfiedParts:
    """P(failed | satisfied): per judged side for the judge, per conversation for the user."""
    t = float(threshold)
    judge = grouped_sums(  # both sides of a pair in one row: the same per-task sums, one scan
        db, [],
        ["(COALESCE(CAST(judge_score_a >= ? AND success_a = 0 AS INTEGER), 0)"
         " + COALESCE(CAST(judge_score_b >= ? AND success_b = 0 AS INTEGER), 0))"],
        "(COALESCE(CAST(judge_score_a >= ? AS INTEGER), 0)"
        " + COALESCE(CAST(judge_score_b >= ? AS INTEGER), 0))",
        PAIRS, (t, t, t, t, run_id),
    ).get(())  # fmt: skip
    conversations = f"(SELECT DISTINCT task_id, agent, trial, sat, success FROM {SIDES}) AS c"
    user = grouped_sums(
        db, [], [as_int("COALESCE(sat, 0) = 1 AND success = 0")], as_int("COALESCE(sat, 0) = 1"),
        conversations, (run_id, run_id),
    ).get(())  # fmt: skip

    def part(sums: list[Sums] | None, unit: str) -> Satisfied:
        s = sums[0] if sums else Sums(0, 0, 0, 0, 0, 0)
        return {"unit": unit, "satisfied": int(s.n), "failed": int(s.k), **interval(s)}

    return {
        "judge": part(judge, "judged conversation side (a side of a pair)"),
        "user_simulator": part(user, "conversation (task, agent, trial), counted once"),
    }


#: the keys of a row's three-way split, its rate and both intervals (what a report row adds)
SPLIT_KEYS = ("decisive", "right", "wrong", "tie", "rate", "ci_low", "ci_high",
              "tie_aware_rate", "tie_aware_ci")  # fmt: skip


def run_figures(report: Report) -> dict[str, Any]:
    """One run's split per bucket and overall and its position bias, from its report: what
    ``compare`` carries for each side, so the app's compare shows the report's own figures."""
    buckets: list[Mapping[str, Any]] = list(report["buckets"])
    overall: Mapping[str, Any] = report.get("overall") or {}
    return {
        "run_id": report["run_id"],
        "buckets": [
            {"label": b["label"], "alias": b["alias"], **{k: b.get(k) for k in SPLIT_KEYS}}
            for b in buckets
        ],
        "overall": {k: overall.get(k) for k in SPLIT_KEYS},
        "position_bias": report["position_bias"],
        "intervals": report.get("intervals"),
    }


ALPHA = 0.05


def ranking(row: Mapping[str, Any]) -> Ranking:
    """Does the judge rank this agent pair opposite to the success check, significantly?

    The success difference is tested paired over the pair's shared tasks (exact McNemar on the
    decisive pairs: A alone succeeded vs B alone), the judge's preference by a sign test on its
    A and B wins (ties left out). ``misselected`` needs both below ALPHA in opposite
    directions; opposite directions short of that are ``suggestive``.
    """
    pairs, decisive = row["pairs"], row["decisive"]
    gap = round((row["success_rate_a"] - row["success_rate_b"]) * pairs)
    a_only, b_only = (decisive + gap) // 2, (decisive - gap) // 2
    a_wins = round(row["judge_win_rate_a"] * pairs)
    b_wins = round(row["judge_win_rate_b"] * pairs)
    truth = (a_only > b_only) - (a_only < b_only)
    judge = (a_wins > b_wins) - (a_wins < b_wins)
    success_p, judge_p = mcnemar_exact(a_only, b_only), mcnemar_exact(a_wins, b_wins)
    opposite = truth != 0 and judge != 0 and truth != judge
    verdict = None
    if opposite:
        verdict = "misselected" if success_p < ALPHA and judge_p < ALPHA else "suggestive"
    return {
        "ranking_misselected": verdict == "misselected",
        "ranking": verdict,
        "success_only_a": a_only,
        "success_only_b": b_only,
        "success_p_value": success_p,
        "judge_sign_p_value": judge_p,
    }


def add_figures(
    report: Report, db: Pairs | sqlite3.Connection, run_id: str, threshold: float
) -> None:
    """The split, the clustered intervals, per-conversation satisfied-but-failed and the
    position-bias statistics, into a report built by either builder (one owner for both)."""
    db = as_pairs(db)
    source, bins = report["gap_source"], report["bins"]
    for index, split in bucket_splits(db, run_id, source, bins).items():
        put_split(report["buckets"][index], split)
    for bucket in report["buckets"]:
        if "tie_aware_ci" not in bucket:
            put_split(bucket, three_way(None))
    judges, task_types = distinct(db, run_id, "judge_model"), distinct(db, run_id, "task_type")
    splits = report_splits(db, run_id, judges=judges, task_types=task_types)
    report["overall"] = {
        "decisive": report["decisive"],
        **splits.overall.get((), three_way(None)),
    }
    for pair in report["agent_pairs"]:
        key = (pair["agent_a"], pair["agent_b"])
        put_split(pair, splits.agent_pairs.get(key, three_way(None)))
    for row in report["by_task_type"]:
        put_split(row, splits.by_task_type.get((row["task_type"],), three_way(None)))
        row["consistency_rate_ci"] = ci_of(splits.agree_by_task_type.get((row["task_type"],)))
    for row in report["by_models"]:
        models = (row["agent_a"], row["agent_b"], row["judge_model"])
        put_split(row, splits.by_models.get(models, three_way(None)))
        row["consistency_rate_ci"] = ci_of(splits.agree_by_models.get(models))
    shares = pair_shares(db, run_id)
    for pair in report["agent_pairs"]:
        _put_ranking(pair, ranking(pair))
        _put_shares(pair, shares.get((pair["agent_a"], pair["agent_b"])))
    report["gap_model"] = gap_model(db, run_id, source)
    sbf = satisfied_but_failed(db, run_id, threshold)
    report["satisfied_but_failed"]["judge"] = sbf["judge"]
    report["satisfied_but_failed"]["user_simulator"] = sbf["user_simulator"]
    unparsed = {j["judge_model"]: j["no_verdict_orders"] for j in report["verdicts"]["by_judge"]}
    bias = position_bias(db, run_id)
    for bias_row in report["position_bias"]:
        # the aggregation's counts give way to the tested figures
        bias_row.pop("first_position_wins", None)
        bias_row.pop("decided_in_inconsistent", None)
        bias_row.pop("first_position_win_rate", None)
        bias_row["unparsed_orders"] = unparsed.get(bias_row["judge_model"], 0)
        if bias_row["judge_model"] in bias:
            tests = bias[bias_row["judge_model"]]
            bias_row["consistency_rate_ci"] = tests["consistency_rate_ci"]
            bias_row.update(tests["agreement"])  # type: ignore[typeddict-item]
            bias_row["first_position_win_rate"] = tests["first_position_win_rate"]
            bias_row["flips_won_by_first"] = tests["flips_won_by_first"]
    report["intervals"] = METHOD


def put_split(row: Bucket | AgentPair | Breakdown, split: Split) -> None:
    """A row's three-way split, written as ``dict.update`` would (rate and interval replaced
    in place, the new keys appended in the split's order: the JSON's key order)."""
    row["right"], row["wrong"], row["tie"] = split["right"], split["wrong"], split["tie"]
    row["rate"], row["ci_low"], row["ci_high"] = split["rate"], split["ci_low"], split["ci_high"]
    row["design_effect"] = split["design_effect"]
    row["tie_aware_rate"], row["tie_aware_ci"] = split["tie_aware_rate"], split["tie_aware_ci"]


def _put_ranking(pair: AgentPair, test: Ranking) -> None:
    pair["ranking_misselected"], pair["ranking"] = test["ranking_misselected"], test["ranking"]
    pair["success_only_a"], pair["success_only_b"] = test["success_only_a"], test["success_only_b"]
    pair["success_p_value"] = test["success_p_value"]
    pair["judge_sign_p_value"] = test["judge_sign_p_value"]


def _put_shares(pair: AgentPair, shares: PairShares | None) -> None:
    none: list[float | None] = [None, None]
    got = shares or {}
    pair["success_rate_a_ci"] = got.get("success_rate_a_ci", none)
    pair["success_rate_b_ci"] = got.get("success_rate_b_ci", none)
    pair["judge_win_rate_a_ci"] = got.get("judge_win_rate_a_ci", none)
    pair["judge_win_rate_b_ci"] = got.get("judge_win_rate_b_ci", none)

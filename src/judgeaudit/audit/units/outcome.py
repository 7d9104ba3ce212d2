"""What a judged pair means: decisiveness, misselection, the reward gap, and the stored rows.

"Decisive" (exactly one side succeeded) is defined here once; the store, the exports, the
analysis and the app all use :func:`decisive`, so no two figures can disagree on it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, overload

from judgeaudit.audit import events as ev
from judgeaudit.audit.units.gap import gap
from judgeaudit.audit.units.verdict_parse import verdict_json

if TYPE_CHECKING:
    import pandas as pd

    from judgeaudit.audit.spec import RunSpec
    from judgeaudit.audit.units import PairUnit
    from judgeaudit.audit.units.judging import PairJudgement

#: A stored trajectory as the store returns it (or the same keys in a dict).
TrajRow = sqlite3.Row | Mapping[str, Any]


@overload
def decisive(success_a: bool, success_b: bool) -> bool: ...
@overload
def decisive(success_a: pd.Series, success_b: pd.Series) -> pd.Series: ...
def decisive(success_a: Any, success_b: Any) -> Any:
    """Exactly one side succeeded: the only pairs on which misselection is defined.

    Works on two booleans or, elementwise, on two boolean pandas Series.
    """
    return success_a != success_b


def true_winner(success_a: bool, success_b: bool) -> str | None:
    """``A`` or ``B`` when the pair is decisive, else None."""
    if not decisive(success_a, success_b):
        return None
    return "A" if success_a else "B"


def is_misselected(success_a: bool, success_b: bool, judge_pref: str) -> bool:
    """The judge preferred the side that failed, on a decisive pair."""
    winner = true_winner(success_a, success_b)
    return winner is not None and judge_pref == {"A": "B", "B": "A"}[winner]


def label_conflict(success_a: Any, success_b: Any, pref: str | None) -> str | None:
    """Why a human label contradicts itself, or None: its own success marks name a winner
    (exactly one side succeeded) and its preference is the other side, or a tie. `review
    import` refuses such a label; a preference export, which would follow the marks and so
    train on a side the reviewer did not prefer, leaves a stored one out and lists it."""
    if success_a is None or success_b is None or pref is None:
        return None
    winner = true_winner(bool(success_a), bool(success_b))
    if winner is None or pref == winner:
        return None
    loser = {"A": "B", "B": "A"}[winner]
    return (
        f"human_pref {pref} contradicts human_success_a {int(success_a)} and human_success_b "
        f"{int(success_b)}: by those marks {winner} succeeded and {loser} failed, so {winner} "
        "is preferred"
    )


def reward_gap(
    source: str,
    cap_a: float,
    cap_b: float,
    score_a: float | None,
    score_b: float | None,
    reward_a: float | None,
    reward_b: float | None,
) -> float | None:
    """The gap under the spec's declared source (capability, judge or external), as
    :mod:`judgeaudit.audit.units.gap` defines it for every reader."""
    if source == "capability":
        return gap(round(cap_a, 6), round(cap_b, 6))  # the stored capability columns
    if source == "judge":
        return gap(score_a, score_b)
    return gap(reward_a, reward_b)


def pair_row(
    unit: PairUnit,
    run_id: str,
    spec: RunSpec,
    ta: TrajRow,
    tb: TrajRow,
    judged: PairJudgement,
    capability: Mapping[str, float],
) -> dict[str, Any]:
    """One ``audit_pairs`` row: the seed's columns first, then the documented additions."""
    sa, sb = bool(ta["success"]), bool(tb["success"])
    cap_a, cap_b = capability[unit.agent_a], capability[unit.agent_b]
    gap = reward_gap(
        spec.gap_source,
        cap_a,
        cap_b,
        judged.score_a,
        judged.score_b,
        ta["external_reward"],
        tb["external_reward"],
    )
    return {
        "pair_id": unit.pair_id(run_id),
        "task_id": unit.task.task_id,
        "agent_a": unit.agent_a,
        "agent_b": unit.agent_b,
        "success_a": int(sa),
        "success_b": int(sb),
        "judge_pref": judged.judge_pref,
        "judge_score_a": judged.score_a,
        "judge_score_b": judged.score_b,
        "reward_gap": gap,
        "misselected": int(is_misselected(sa, sb, judged.judge_pref)),
        "run_id": run_id,
        "task_type": unit.task.task_type,
        "trial": unit.trial,
        "pref_ab": judged.pref_ab,
        "pref_ba": judged.pref_ba,
        "consistent": None if judged.consistent is None else int(judged.consistent),
        "gap_source": spec.gap_source,
        "satisfied_a": ta["satisfied"],
        "satisfied_b": tb["satisfied"],
        "success_source": ta["success_source"],
        "capability_a": round(cap_a, 6),
        "capability_b": round(cap_b, 6),
        "reward_a": ta["external_reward"],
        "reward_b": tb["external_reward"],
        "judge_model": spec.judge.model,
        "trial_b": unit.trial_of_b,
        "source_id": unit.source_id,
    }


def judge_log_rows(judged: PairJudgement, run_id: str) -> list[dict[str, Any]]:
    """The ``judge_logs`` rows of one pair, one per judge call, raw output verbatim; stamped
    here (UTC, SQLite's ``CURRENT_TIMESTAMP`` format) so the live log line and the stored row
    carry the same ``created_at``."""
    stamped = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    return [
        {
            "log_id": log.log_id,
            "pair_id": log.pair_id,
            "role": "judge",
            "model": log.model,
            "prompt_hash": log.prompt_hash,
            "raw_output": log.raw_output,
            "parsed_json": verdict_json(log.parsed),
            "created_at": stamped,
            "run_id": run_id,
            "order": log.order,
            "attempt": log.attempt,
            "latency_ms": log.latency_ms,
            "prompt_tokens": log.prompt_tokens,
            "completion_tokens": log.completion_tokens,
            "parse_error": log.parse_error,
            "prompt_template_hash": log.template_hash,
        }
        for log in judged.logs
    ]


def prompt_rows(
    judged: PairJudgement, stored: Callable[[str], bool] = lambda _hash: False
) -> dict[str, str]:
    """prompt_hash -> the exact messages, for the ``prompts`` table; a prompt ``stored``
    already (by its hash) is not encoded again."""
    return {
        log.prompt_hash: json.dumps(log.messages, ensure_ascii=False)
        for log in judged.logs
        if not stored(log.prompt_hash)
    }


def pair_events(pair_id: str, judged: PairJudgement, row: Mapping[str, Any]) -> list[ev.Event]:
    """What the watchers see for one stored pair: every judge call, then the pair."""
    out: list[ev.Event] = []
    for log in judged.logs:
        parsed = log.parsed or {}
        reasons = parsed.get("reasons") or [""]
        out.append(
            ev.JudgeCallDone(
                pair_id,
                log.order,
                log.attempt,
                parsed.get("winner"),
                parsed.get("score_a"),
                parsed.get("score_b"),
                str(reasons[0]),
                log.parse_error,
                log.raw_output,
            )
        )
    out.append(
        ev.PairDone(
            pair_id,
            row["agent_a"],
            row["agent_b"],
            bool(row["success_a"]),
            bool(row["success_b"]),
            judged.judge_pref,
            bool(row["misselected"]),
            str(row["task_id"]),
        )
    )
    return out

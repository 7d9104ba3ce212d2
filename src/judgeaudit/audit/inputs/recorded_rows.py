"""The rows one recorded pair stores (its two trajectories, its ``audit_pairs`` row, one
``judge_logs`` row per recorded verdict, its task): what a live judge's run stores for the same
replies, by the same swap rule (:func:`~judgeaudit.audit.units.verdict_parse.swap_rule`). A verdict
recorded with ``"winner": null`` is stored as a live judge's reply that did not parse (its
``parse_error``, no ``parsed_json``), so every no-verdict figure counts it. Split from
:mod:`judgeaudit.audit.inputs.recorded_verdicts`, which validates and stores them."""

from __future__ import annotations

import json
import operator
from typing import Any

from judgeaudit.audit.inputs.source_run import task_to_json
from judgeaudit.audit.inputs.verdict_rules import recorded_error
from judgeaudit.audit.spec import RunSpec
from judgeaudit.audit.store import PAIR_COLUMNS
from judgeaudit.audit.store.prepared import Table
from judgeaudit.audit.units import ImportedPair
from judgeaudit.audit.units.ids import pair_id as make_pair_id
from judgeaudit.audit.units.ids import recorded_log_id, traj_id
from judgeaudit.audit.units.outcome import is_misselected, reward_gap
from judgeaudit.audit.units.verdict_parse import FLIP, swap_rule

TRAJ_COLUMNS = (
    "traj_id", "run_id", "task_id", "task_type", "agent", "trial", "events", "ending",
    "satisfied", "success", "success_source", "external_reward", "context",
)  # fmt: skip
LOG_COLUMNS = (
    "log_id", "pair_id", "role", "model", "prompt_hash", "raw_output", "parsed_json", "run_id",
    "order", "attempt", "parse_error",
)  # fmt: skip
TASK_COLUMNS = ("run_id", "task_id", "task_json")
STORED_PAIR_COLUMNS = tuple(c for c in PAIR_COLUMNS if c != "created_at")
_pair_values = operator.itemgetter(*STORED_PAIR_COLUMNS)  # a pair row's values, in that order
_json = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(v, ensure_ascii=False), reused


#: The tables a recorded run stores, as prepared: (table, columns, ids that start with the run).
TABLES: tuple[Table, ...] = (
    ("trajectories", TRAJ_COLUMNS, ("traj_id",)),
    ("audit_pairs", STORED_PAIR_COLUMNS, ("pair_id",)),
    ("judge_logs", LOG_COLUMNS, ("log_id", "pair_id")),
    ("tasks", TASK_COLUMNS, ()),
)


def batch_rows(
    batch: list[ImportedPair], spec: RunSpec, run_id: str = "", known: set[str] | None = None
) -> list[list[tuple[Any, ...]]]:
    """One batch's rows per table of :data:`TABLES`; ``''`` for the run id when they are
    prepared before the run exists (see :mod:`judgeaudit.audit.store.prepared`). ``known``:
    task ids whose row an earlier batch of this pass stored (skipped, then added to)."""
    trajectories: list[tuple[Any, ...]] = []
    pairs: list[tuple[Any, ...]] = []
    logs: list[tuple[Any, ...]] = []
    tasks: dict[str, tuple[str, str, str]] = {}  # kept, so a live judge can re-judge the run
    for pair in batch:
        if pair.task.task_id not in tasks and (known is None or pair.task.task_id not in known):
            tasks[pair.task.task_id] = (run_id, pair.task.task_id, task_to_json(pair.task))
        t, p, v = _rows(pair, run_id, spec)
        trajectories.extend(t)
        pairs.append(p)
        logs.extend(v)
    if known is not None:
        known.update(tasks)
    return [trajectories, pairs, logs, list(tasks.values())]


def outcome(verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    """Preferences per order (pair terms), the swap rule, mean scores: as a live judge gives,
    by its own rule (:func:`~judgeaudit.audit.units.verdict_parse.swap_rule`); a verdict recorded
    with ``"winner": null`` is an order whose reply gave no verdict. A pair recorded in one
    order is stored as a live run without swap stores it (its verdict in ``pref_ab``)."""
    by_order = {v["order"]: v["winner"] for v in verdicts}
    if len(by_order) == 2:
        pref_ab, pref_ba, judge_pref, agreed = swap_rule(by_order["AB"], by_order["BA"])
        consistent: int | None = int(agreed)
    else:
        (only,) = by_order.values()
        pref_ab = judge_pref = only or "tie"
        pref_ba, consistent = None, None
    return {
        "pref_ab": pref_ab,
        "pref_ba": pref_ba,
        "judge_pref": judge_pref,
        "judge_score_a": _mean(verdicts, "score_a"),
        "judge_score_b": _mean(verdicts, "score_b"),
        "consistent": consistent,
    }


def _mean(verdicts: list[dict[str, Any]], key: str) -> float | None:
    """The mean of the verdicts' scores under ``key`` (those given), to 3 places."""
    values = [value for v in verdicts if (value := v.get(key)) is not None]
    return round(sum(values) / len(values), 3) if values else None


def stored_pair_id(p: ImportedPair, run_id: str) -> str:
    """The ``audit_pairs`` id a recorded pair is stored under in run ``run_id``."""
    return make_pair_id(run_id, p.task.task_id, p.trial_a, p.agent_a, p.agent_b, p.trial_b)


def _rows(
    p: ImportedPair, run_id: str, spec: RunSpec
) -> tuple[list[tuple[Any, ...]], tuple[Any, ...], list[tuple[Any, ...]]]:
    trajectories = []
    for agent, trial, events, success, reward, satisfied in (
        (p.agent_a, p.trial_a, p.events_a, p.success_a, p.reward_a, p.satisfied_a),
        (p.agent_b, p.trial_b, p.events_b, p.success_b, p.reward_b, p.satisfied_b),
    ):
        trajectories.append(
            (
                traj_id(run_id, p.task.task_id, agent, trial),
                run_id,
                p.task.task_id,
                p.task.task_type,
                agent,
                trial,
                _json(events) if events else "[]",
                "imported",
                None if satisfied is None else int(satisfied),
                int(success),
                "import",
                reward,
                p.context,
            )
        )
    pid = stored_pair_id(p, run_id)
    judged = outcome(p.verdicts)
    model = p.judge_model or spec.judge.model
    gap = None
    if spec.gap_source != "capability":
        gap = reward_gap(
            spec.gap_source, 0.0, 0.0, judged["judge_score_a"], judged["judge_score_b"],
            p.reward_a, p.reward_b,
        )  # fmt: skip
    row = {
        "pair_id": pid,
        "task_id": p.task.task_id,
        "agent_a": p.agent_a,
        "agent_b": p.agent_b,
        "success_a": int(p.success_a),
        "success_b": int(p.success_b),
        "judge_pref": judged["judge_pref"],
        "judge_score_a": judged["judge_score_a"],
        "judge_score_b": judged["judge_score_b"],
        "reward_gap": gap,
        "misselected": int(is_misselected(p.success_a, p.success_b, judged["judge_pref"])),
        "run_id": run_id,
        "task_type": p.task.task_type,
        "trial": p.trial_a,
        "pref_ab": judged["pref_ab"],
        "pref_ba": judged["pref_ba"],
        "consistent": judged["consistent"],
        "gap_source": spec.gap_source,
        "satisfied_a": None if p.satisfied_a is None else int(p.satisfied_a),
        "satisfied_b": None if p.satisfied_b is None else int(p.satisfied_b),
        "success_source": "import",
        "capability_a": None,  # filled in SQL once every trajectory is stored
        "capability_b": None,
        "reward_a": p.reward_a,
        "reward_b": p.reward_b,
        "judge_model": model,
        "trial_b": p.trial_b,
        "source_id": p.pair_id,
    }
    logs = []
    for v in p.verdicts:
        flipped = v["order"] == "BA"  # the log keeps the verdict in the order it was shown
        parsed_text, error = None, recorded_error(v)
        if error is None:  # a verdict; else stored as a live judge's reply that did not parse
            first, second = ("score_b", "score_a") if flipped else ("score_a", "score_b")
            parsed = {
                "winner": FLIP[v["winner"]] if flipped else v["winner"],
                "score_a": v.get(first),
                "score_b": v.get(second),
                "reasons": v.get("reasons") or [],
            }
            parsed_text = _json(parsed)
        logs.append(
            (
                recorded_log_id(pid, v["order"]),
                pid,
                "judge",
                model,
                p.judge_prompt_hash,
                v.get("raw_output"),  # none recorded: NULL, no text made up (parsed_json has it)
                parsed_text,
                run_id,
                v["order"],
                0,
                error,
            )
        )
    return trajectories, _pair_values(row), logs

"""Deterministic ids for stored units: a rerun finds what is done by id and skips it."""

from __future__ import annotations

from typing import Any


def traj_id(run_id: str, task_id: str, agent: str, trial: int) -> str:
    return f"{run_id}/{task_id}/t{trial}/{agent}"


def pair_id(
    run_id: str, task_id: str, trial: int, agent_a: str, agent_b: str, trial_b: int | None = None
) -> str:
    """``RUN/TASK/tN/A~B``; two trials of one agent (imported) give ``RUN/TASK/tN~tM/A~A``."""
    trials = f"t{trial}" if trial_b is None or trial_b == trial else f"t{trial}~t{trial_b}"
    return f"{run_id}/{task_id}/{trials}/{agent_a}~{agent_b}"


def recorded_log_id(pair_id: str, order: str) -> str:
    """The ``judge_logs`` id of a verdict read from a recorded log (no model was called)."""
    return f"{pair_id}/{order}/recorded"


def is_recorded_log(log_id: str) -> bool:
    """Whether a ``judge_logs`` row holds a recorded verdict: it has no rendered prompt."""
    return log_id.endswith("/recorded")


def pair_trial_b(row: Any) -> int:
    """Side B's trial of a stored ``audit_pairs`` row (``trial`` when the column is empty/absent)."""
    keys = row.keys() if hasattr(row, "keys") else ()
    value = row["trial_b"] if "trial_b" in keys else None
    return int(row["trial"] if value is None else value)

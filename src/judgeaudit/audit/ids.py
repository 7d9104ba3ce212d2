"""Deterministic ids for stored units: a rerun finds what is done by id and skips it."""

from __future__ import annotations


def traj_id(run_id: str, task_id: str, agent: str, trial: int) -> str:
    return f"{run_id}/{task_id}/t{trial}/{agent}"


def pair_id(run_id: str, task_id: str, trial: int, agent_a: str, agent_b: str) -> str:
    return f"{run_id}/{task_id}/t{trial}/{agent_a}~{agent_b}"

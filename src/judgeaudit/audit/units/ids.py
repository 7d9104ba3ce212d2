"""Deterministic ids for stored units: a rerun finds what is done by id and skips it."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from judgeaudit.agentnames import TRIAL_PART

#: The trials part of a pair id: ``tN`` or ``tN~tM``. No agent name holds a part of this form
#: (:mod:`judgeaudit.agentnames`), so the last one in an id is the trials part.
TRIALS_PART = re.compile(rf"{TRIAL_PART.pattern}(?:~{TRIAL_PART.pattern})?")


class PairIdParts(NamedTuple):
    where: str  # ``TASK/tN``: the task (which may hold '/') and the trials
    agent_a: str
    agent_b: str


def traj_id(run_id: str, task_id: str, agent: str, trial: int) -> str:
    return f"{run_id}/{task_id}/t{trial}/{agent}"


def pair_id(
    run_id: str, task_id: str, trial: int, agent_a: str, agent_b: str, trial_b: int | None = None
) -> str:
    """``RUN/TASK/tN/A~B``; two trials of one agent (imported) give ``RUN/TASK/tN~tM/A~A``."""
    return f"{run_id}/{task_id}/{trials_part(trial, trial_b)}/{agent_a}~{agent_b}"


def trials_part(trial: int, trial_b: int | None = None) -> str:
    """A pair's trials as its id and the app show them: ``tN``, or ``tN~tM`` for two trials."""
    return f"t{trial}" if trial_b is None or trial_b == trial else f"t{trial}~t{trial_b}"


def trials_at(parts: list[str]) -> int | None:
    """Where the trials part is among an id's '/'-parts: the last one of that form before the
    agents' part (no agent name holds one)."""
    return next((i for i in range(len(parts) - 2, -1, -1) if TRIALS_PART.fullmatch(parts[i])), None)


def _split(pair_id: str) -> tuple[list[str], int, str, str, str] | None:
    """An id (or its tail) cut at its trials part: its '/'-parts, where the trials part is, and
    the agents' part split at '~' (agent A, the tilde, agent B); None without a trials part."""
    parts = pair_id.split("/")
    at = trials_at(parts)
    if at is None:
        return None
    agent_a, tilde, agent_b = "/".join(parts[at + 1 :]).partition("~")
    return parts, at, agent_a, tilde, agent_b


def pair_id_parts(pair_id: str) -> PairIdParts:
    """``RUN/TASK/tN/A~B`` -> (``TASK/tN``, A, B), where agent names may hold '/' and tasks
    '/', '~' and trial-like parts (an id of another shape: all of it after the run, no agents)."""
    split = _split(pair_id)
    if split is None or split[1] == 0:
        return PairIdParts(pair_id.partition("/")[2], "", "")
    parts, at, agent_a, _, agent_b = split
    return PairIdParts("/".join(parts[1 : at + 1]), agent_a, agent_b)


def swapped_pair_id(pair_id: str) -> str | None:
    """The id (or an id's tail, ``TASK/tN/A~B``, ``tN/A~B``, or the agents alone, ``A~B``) with
    the agents the other way round (``show``'s "did you mean"); None without two different
    agents."""
    split = _split(pair_id)
    if split is None:  # the agents alone: no agent name holds '~'
        agent_a, tilde, agent_b = pair_id.partition("~")
        alone = tilde and agent_a and agent_b and agent_a != agent_b and "~" not in agent_b
        return f"{agent_b}~{agent_a}" if alone else None
    parts, at, agent_a, tilde, agent_b = split
    if not tilde or agent_a == agent_b:
        return None
    return "/".join([*parts[: at + 1], f"{agent_b}~{agent_a}"])


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


def pair_trials(row: Any) -> str:
    """A stored ``audit_pairs`` row's trials, ``tN`` or ``tN~tM``, read from its columns (the
    pair id cannot be split for them: an agent name may hold a '/')."""
    return trials_part(int(row["trial"]), pair_trial_b(row))


def shown_source_id(pair: Any, cut: int | None = None) -> str | None:
    """An imported pair's own id in its log (``source_id``) as shown beside the audit's id, or
    None: cut to ``cut`` characters with "…" (before quoting, so a quote is never cut off) and
    quoted where it would not read as itself (edge spaces; control characters in rows stored
    before they were refused)."""
    source = pair.get("source_id")
    if source is None:
        return None
    plain = source.isprintable() and source == source.strip()
    if cut is not None and len(source) > cut:
        source = source[: cut - 1] + "…"
    return str(source) if plain else repr(source)

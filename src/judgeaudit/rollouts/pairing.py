"""Pairing rollouts into the imported-pairs JSONL, validated exactly as ``run.imported`` reads it.

``agents`` pairs the same task and trial across agents; ``trials`` pairs different trials of the
same task and agent (the capability gap is then zero, which shows how much of a judge's
preference is noise); ``both`` does both. Every row written goes through the same checks the
audit applies, so an import never writes a file the audit would refuse.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from judgeaudit.audit.inputs.imported import parse_pair
from judgeaudit.audit.inputs.pair_checks import ImportedSet
from judgeaudit.audit.inputs.verdict_rules import clean_verdict, contradiction, scores_seen
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.credentials import scrub_content
from judgeaudit.fsutil import atomic_writer
from judgeaudit.rollouts.formats import Rollout, Skips, Verdict, dumps
from judgeaudit.rollouts.messages import RolloutError

PAIRINGS = ("trials", "agents", "both")


#: The distinct agent names a recorded import's summary counts.
AGENTS_COUNTED = 1000


@dataclass
class ImportSummary:
    read: int = 0
    unit: str = "trajectories"  # what ``read`` counts: recorded logs hold pairs
    agents: dict[str, int] = field(default_factory=dict)
    tasks: int = 0
    pairs_agents: int = 0
    pairs_trials: int = 0
    verdicts: int = 0
    skips: Skips = field(default_factory=Skips)
    #: Rewards neither 0 nor 1 (τ-bench partial credit): counted as failures, and said so.
    partial_rewards: int = 0
    first_partial: str = ""
    #: Verdicts kept with ``"winner": null`` (no verdict: a reply that did not parse).
    no_verdicts: int = 0
    #: Verdicts kept whose winner contradicts their own scores, where and how.
    contradictions: Skips = field(default_factory=Skips)
    #: Scores of the verdicts kept (score_a and score_b each), and the highest: a log on a 0-1
    #: scale is said (:func:`~judgeaudit.audit.inputs.verdict_rules.low_scale`).
    scores: int = 0
    top_score: float | None = None

    def count_scores(self, count: int, top: float | None) -> None:
        self.scores += count
        if top is not None and (self.top_score is None or top > self.top_score):
            self.top_score = top

    @property
    def pairs(self) -> int:
        return self.pairs_agents + self.pairs_trials

    @property
    def without_verdict(self) -> int:
        """A recorded log's pairs read but left out for want of a verdict (the trend shows how
        many per period, whether the day was audited into audit.db or a Parquet history)."""
        return self.read - self.pairs_agents

    def count_pair_agents(self, *agents: str) -> None:
        """Count a recorded pair's agents; at most :data:`AGENTS_COUNTED` distinct names, so a
        log with an agent name per pair cannot grow the summary without bound."""
        for agent in agents:
            if agent in self.agents or len(self.agents) < AGENTS_COUNTED:
                self.agents[agent] = self.agents.get(agent, 0) + 1


class Collector:
    """Rollouts by (task, agent, trial); the same key twice must carry the same content, and a
    task id the same task text, task type and context wherever it appears (a pair shows the
    judge one task, so a second text would silently lose to the first)."""

    def __init__(self) -> None:
        self.rollouts: dict[tuple[str, str, int], Rollout] = {}
        self.verdicts: list[Verdict] = []
        self.tasks: dict[str, Rollout] = {}  # task id -> the first rollout that defined it
        self.declared: dict[str, Rollout] = {}  # task id -> the first that declared its text

    def add(self, item: Rollout | Verdict) -> None:
        if isinstance(item, Verdict):
            self.verdicts.append(item)
            return
        self._same_task(item)
        key = (item.task_id, item.agent, item.trial)
        seen = self.rollouts.get(key)
        if seen is None:
            self.rollouts[key] = item
        elif _content(seen) != _content(item):
            unset = "" if item.trial_given and seen.trial_given else " (no trial field, so 0)"
            raise RolloutError(
                f"{item.where}: agent {item.agent!r}, task {item.task_id!r}, trial {item.trial}"
                f"{unset} is already on {seen.where} with a different trajectory or label; give "
                "each (task, agent, trial) once with its own trial, or pass --agent NAME per file"
            )

    def task_text(self, task_id: str) -> str:
        """The task's text: the declared one, else the first derived one (a first user
        message: two agents' users rarely open with the same words, so that is no conflict)."""
        return (self.declared.get(task_id) or self.tasks[task_id]).task

    def _same_task(self, item: Rollout) -> None:
        first = self.tasks.setdefault(item.task_id, item)
        if item.task_at:
            declared = self.declared.setdefault(item.task_id, item)
            if declared.task != item.task:
                raise RolloutError(
                    f"{item.task_at}: task_id {item.task_id!r} has a different task than on "
                    f"{declared.task_at}; give each task id one task (or give the two tasks "
                    "different ids)"
                )
        if item.task_type != first.task_type:
            raise RolloutError(
                f"{item.type_at or item.where}: task_id {item.task_id!r} has a different task "
                f"type ({item.task_type!r}) than on {first.type_at or first.where} "
                f"({first.task_type!r}); give each task id one task type"
            )
        if item.context != first.context:
            raise RolloutError(
                f"{item.context_at or item.where}: task_id {item.task_id!r} has a different system "
                f"prompt than on {first.context_at or first.where}; a pair shows the judge one "
                "policy, so import agents that were given the same system prompt (or give the "
                "tasks different ids)"
            )


def _content(r: Rollout) -> tuple[Any, ...]:
    return (r.task, r.context, dumps(r.events), r.success, r.reward, r.satisfied)


def pair_rows(
    collector: Collector, pairing: str, summary: ImportSummary
) -> list[tuple[dict[str, Any], str]]:
    """The pair rows in a stable order (tasks, then trials, then agents as first seen), each
    with the input locations of its two sides, for an error that names the input."""
    rollouts = list(collector.rollouts.values())
    summary.read = len(rollouts)
    agent_order: dict[str, int] = {}
    task_order: dict[str, int] = {}
    for r in rollouts:
        agent_order.setdefault(r.agent, len(agent_order))
        task_order.setdefault(r.task_id, len(task_order))
        summary.agents[r.agent] = summary.agents.get(r.agent, 0) + 1
    summary.tasks = len(task_order)
    rows: list[tuple[dict[str, Any], str]] = []
    used: set[tuple[str, str, int]] = set()
    if pairing in ("agents", "both"):
        groups: dict[tuple[str, int], list[Rollout]] = {}
        for r in rollouts:
            groups.setdefault((r.task_id, r.trial), []).append(r)
        for key in sorted(groups, key=lambda k: (task_order[k[0]], k[1])):
            group = sorted(groups[key], key=lambda r: agent_order[r.agent])
            for a, b in combinations(group, 2):
                rows.append((_row(a, b, collector), f"{a.where} and {b.where}"))
                used.update({(a.task_id, a.agent, a.trial), (b.task_id, b.agent, b.trial)})
                summary.pairs_agents += 1
    if pairing in ("trials", "both"):
        by_agent: dict[tuple[str, str], list[Rollout]] = {}
        for r in rollouts:
            by_agent.setdefault((r.task_id, r.agent), []).append(r)
        for agent_key in sorted(by_agent, key=lambda k: (task_order[k[0]], agent_order[k[1]])):
            for a, b in combinations(sorted(by_agent[agent_key], key=lambda r: r.trial), 2):
                rows.append((_row(a, b, collector), f"{a.where} and {b.where}"))
                used.update({(a.task_id, a.agent, a.trial), (b.task_id, b.agent, b.trial)})
                summary.pairs_trials += 1
    for r in rollouts:
        if (r.task_id, r.agent, r.trial) not in used:
            partner = {
                "agents": "other agent on the same task and trial",
                "trials": "other trial of this agent",
            }.get(pairing, "other agent on this trial, nor other trial of this agent,")
            summary.skips.add(
                r.where, f"task {r.task_id!r} trial {r.trial}: no {partner} to pair with"
            )
    _attach_verdicts([row for row, _ in rows], collector.verdicts, summary)
    return rows


def _row(a: Rollout, b: Rollout, collector: Collector) -> dict[str, Any]:
    row: dict[str, Any] = {
        "task_id": a.task_id,
        "task": collector.task_text(a.task_id),
        "task_type": a.task_type,
        "agent_a": a.agent,
        "agent_b": b.agent,
    }
    if a.context:
        row["context"] = a.context
    if a.trial == b.trial:
        row["trial"] = a.trial
    else:
        row["trial_a"], row["trial_b"] = a.trial, b.trial
    row |= {
        "trajectory_a": a.events,
        "trajectory_b": b.events,
        "success_a": int(a.success),
        "success_b": int(b.success),
    }
    for side, r in (("a", a), ("b", b)):
        if r.reward is not None:
            row[f"reward_{side}"] = r.reward
        if r.satisfied is not None:
            row[f"satisfied_{side}"] = r.satisfied
    return row


_SWAP = {"A": "B", "B": "A", "tie": "tie", "AB": "BA", "BA": "AB"}


def _attach_verdicts(
    rows: list[dict[str, Any]], verdicts: Iterable[Verdict], summary: ImportSummary
) -> None:
    """Recorded verdicts onto their pairs; a verdict for (b, a) is mapped onto pair (a, b)."""
    index: dict[tuple[str, str, int, str, int], dict[str, Any]] = {}
    for row in rows:
        ta, tb = row.get("trial_a", row.get("trial", 0)), row.get("trial_b", row.get("trial", 0))
        index[(row["task_id"], row["agent_a"], ta, row["agent_b"], tb)] = row
    for v in verdicts:
        body = dict(v.body)
        found = index.get((v.task_id, v.agent_a, v.trial_a, v.agent_b, v.trial_b))
        if found is None:
            found = index.get((v.task_id, v.agent_b, v.trial_b, v.agent_a, v.trial_a))
            body = _mirror(body)
        if found is None:
            summary.skips.add(v.where, "verdict for a pair that was not imported")
            continue
        row = found
        row.setdefault("verdicts", []).append(body)
        for key, value in (("judge_model", v.judge_model), ("judge_prompt_hash", v.prompt_hash)):
            if value is not None:
                if row.get(key, value) != value:
                    raise RolloutError(f"{v.where}: {key}: differs from the pair's other verdict")
                row[key] = value
        summary.verdicts += 1
        _note_verdict(v, summary)


def _note_verdict(v: Verdict, summary: ImportSummary) -> None:
    """A kept verdict's winner null (no verdict) or contradicting its own scores, counted as
    recorded-jsonl counts them (:mod:`~judgeaudit.audit.inputs.verdict_rules`), in the line's
    own A/B terms; one the audit's checks refuse is left to them (the write names it)."""
    checked = clean_verdict(v.body)
    if checked is None:
        return
    summary.no_verdicts += checked["winner"] is None
    summary.count_scores(*scores_seen(checked))
    if (how := contradiction(checked)) is not None:
        summary.contradictions.add(v.where, how)


def _mirror(body: dict[str, Any]) -> dict[str, Any]:
    out = dict(body)
    if body.get("order") in _SWAP:
        out["order"] = _SWAP[body["order"]]
    if body.get("winner") in _SWAP:
        out["winner"] = _SWAP[body["winner"]]
    out["score_a"], out["score_b"] = body.get("score_b"), body.get("score_a")
    return {k: v for k, v in out.items() if v is not None or k in body}


def write_pairs(rows: list[tuple[dict[str, Any], str]], out: Path) -> None:
    """Check every row as the audit will, then write the JSONL atomically (all or nothing).

    A refusal names the input records the row was made from (``out`` does not exist yet)."""
    checks = ImportedSet()
    for row, source in rows:
        try:
            checks.add(parse_pair(row, f"the pair of {source}"), row)
        except TaskError as exc:
            raise RolloutError(f"cannot write a valid pair to {out} ({exc})") from None
    with atomic_writer(out) as handle:
        for row, _ in rows:
            handle.write(scrub_content(dumps(row)) + "\n")  # a conversation may quote a key

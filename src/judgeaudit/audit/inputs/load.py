"""A run's inputs, loaded and validated once, with their content hash bound into the spec.

The spec hash decides whether ``OUT`` holds this run (resume) or another (refuse without
``--new-run``); an edited task or pairs file must count as another spec, so the hash of what
the file holds becomes part of it. The runner and ``--dry-run`` both go through here, so they
agree on which stored run is "this one".
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from judgeaudit.audit.inputs import recorded_verdicts as recorded
from judgeaudit.audit.inputs.imported import load_imported_with_hash
from judgeaudit.audit.inputs.rejudge import source_of
from judgeaudit.audit.spec import RunSpec
from judgeaudit.audit.tasks import Task, load_tasks, task_set_hash
from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.units import ImportedPair
from judgeaudit.audit.units import gap as gaps
from judgeaudit.audit.units.period import OnePeriod


@dataclass(frozen=True)
class Inputs:
    spec: RunSpec  # with ``inputs_hash`` set (empty for the built-in task set)
    tasks: list[Task]
    imported: list[ImportedPair] | None
    recorded_pairs: int = 0  # pairs in a recorded-verdicts file (counted by its validation)
    recorded_rows: recorded.Rows | recorded.Trusted | None = None  # for the store pass


def load_inputs(spec: RunSpec, *, prepare: bool = True) -> Inputs:
    """Tasks or pairs validated (one-line errors, nothing written); the spec hash covers them.
    ``prepare=False`` (a plan, which needs only the hash) builds no rows for a recorded run."""
    source = source_of(spec)
    if source is not None:
        return Inputs(spec, source.tasks(), None)
    if spec.imported and not (spec.base_dir() / spec.imported).exists():
        raise TaskError(
            f"{spec.path}: run.imported: {spec.base_dir() / spec.imported}: no such file; give "
            "the pairs file `judgeaudit import` wrote (a path relative to the spec)"
        )
    if spec.judge_source == "recorded" and spec.imported:
        scanned = recorded.scan(spec.base_dir() / spec.imported, spec if prepare else None)
        bound = dataclasses.replace(spec, inputs_hash=scanned.content, period=scanned.period or "")
        return Inputs(bound, [], None, scanned.pairs, scanned.rows)
    if spec.imported:
        imported, content = load_imported_with_hash(spec.base_dir() / spec.imported)
        rewards = {r for p in imported for r in (p.reward_a, p.reward_b) if r is not None}
        reason = gaps.unfit(
            spec.gap_source,
            binary_rewards=bool(rewards) and rewards <= {0.0, 1.0},
            one_agent=all(p.agent_a == p.agent_b for p in imported),
            no_rewards=bool(imported) and not rewards,
        )
        if reason:
            raise gaps.GapSourceError(f"{spec.path}: gap.source = {spec.gap_source!r}: {reason}")
        unique = {p.task.task_id: p.task for p in imported}  # one per task, in file order
        periods = OnePeriod()
        for p in imported:
            problem = periods.add(p.period, p.where)
            if problem:
                raise TaskError(problem)
        bound = dataclasses.replace(spec, inputs_hash=content, period=periods.period or "")
        return Inputs(bound, list(unique.values()), imported)
    # simulated conversations carry no reward: refused before the run is paid for, not after
    reason = gaps.unfit(spec.gap_source, binary_rewards=False, one_agent=False, no_rewards=True)
    if reason:
        raise gaps.GapSourceError(f"{spec.path}: gap.source = {spec.gap_source!r}: {reason}")
    tasks = load_tasks(spec.tasks, spec.base_dir(), spec.path)
    if spec.tasks.startswith("builtin:"):
        return Inputs(spec, tasks, None)
    return Inputs(dataclasses.replace(spec, inputs_hash=task_set_hash(tasks)), tasks, None)

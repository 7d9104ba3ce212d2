"""The work units of a run as typed values, with the deterministic ids that make resuming safe."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judgeaudit.audit.spec import ModelRef, RunSpec
from judgeaudit.audit.tasks import Task
from judgeaudit.audit.units.ids import pair_id, traj_id


@dataclass(frozen=True)
class ImportedPair:
    """One row of an imported pairs file, validated: two trajectories of one task and their labels."""

    task: Task
    agent_a: str
    agent_b: str
    events_a: list[dict[str, Any]]
    events_b: list[dict[str, Any]]
    success_a: bool
    success_b: bool
    reward_a: float | None
    reward_b: float | None
    satisfied_a: bool | None
    satisfied_b: bool | None
    trial_a: int = 0
    trial_b: int = 0
    context: str | None = None
    where: str = ""
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    judge_model: str | None = None
    judge_prompt_hash: str | None = None
    pair_id: str | None = None
    period: str | None = None  # the day/week/month the verdicts were logged (units/period.py)


@dataclass(frozen=True)
class TrajectoryUnit:
    """One conversation: an agent on a task, one trial."""

    task: Task
    agent: ModelRef
    trial: int

    def traj_id(self, run_id: str) -> str:
        return traj_id(run_id, self.task.task_id, self.agent.name, self.trial)

    @property
    def name(self) -> str:
        return f"{self.task.task_id}/{self.agent.name}/{self.trial}"


@dataclass(frozen=True)
class PairUnit:
    """One judged pair: two agents' trajectories of the same task and trial."""

    task: Task
    trial: int
    agent_a: str
    agent_b: str
    imported: ImportedPair | None = None
    trial_b: int | None = None  # imported pairs of two trials of one agent; else ``trial``
    #: the pair's own id in the log it was imported from (a re-judge keeps its source's)
    source_id: str | None = None

    @property
    def trial_of_b(self) -> int:
        return self.trial if self.trial_b is None else self.trial_b

    def pair_id(self, run_id: str) -> str:
        return pair_id(
            run_id, self.task.task_id, self.trial, self.agent_a, self.agent_b, self.trial_b
        )

    def traj_ids(self, run_id: str) -> tuple[str, str]:
        return (
            traj_id(run_id, self.task.task_id, self.agent_a, self.trial),
            traj_id(run_id, self.task.task_id, self.agent_b, self.trial_of_b),
        )

    @property
    def name(self) -> str:
        return f"{self.task.task_id}/{self.trial}/{self.agent_a}/{self.agent_b}"


@dataclass(frozen=True)
class CheckUnit:
    """The LLM success check on a stored trajectory (a re-judge that asks for one)."""

    task: Task
    traj_id: str

    @property
    def name(self) -> str:
        return f"success check {self.traj_id}"


Unit = TrajectoryUnit | PairUnit | CheckUnit


def trajectory_units(spec: RunSpec, tasks: list[Task]) -> list[TrajectoryUnit]:
    return [
        TrajectoryUnit(task, agent, trial)
        for task in tasks
        for agent in spec.agents
        for trial in range(spec.trials)
    ]


def pair_units(
    spec: RunSpec, tasks: list[Task], imported: list[ImportedPair] | None
) -> list[PairUnit]:
    if imported:
        return [
            PairUnit(
                p.task, p.trial_a, p.agent_a, p.agent_b, p, trial_b=p.trial_b, source_id=p.pair_id
            )
            for p in imported
        ]
    return [
        PairUnit(task, trial, a, b)
        for task in tasks
        for trial in range(spec.trials)
        for a, b in spec.pairs
    ]

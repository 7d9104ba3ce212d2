"""Typed progress events. The TUI, the CLI progress bar and the JSON-lines printer all consume
the same stream; the runner never knows who is watching."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

from judgeaudit.audit.units.verdict_parse import Order, Pref

#: The phases a run goes through (a recorded-verdicts import has only "recorded").
Phase = Literal["trajectories", "success checks", "judging", "recorded"]


#: (agent_a, agent_b, task_id, pairs, decisive pairs, misselected) of the pairs one agent pair
#: stored on one task (a list of lists once it has crossed the app's pipe as JSON)
StoredCount = tuple[str, str, str, int, int, int]


@dataclass(frozen=True)
class RunStarted:
    run_id: str
    out_dir: str
    resumed: bool
    trajectories_total: int
    trajectories_done: int
    pairs_total: int
    pairs_done: int
    warnings: list[str] = field(default_factory=list)
    #: a resumed run's pairs stored before it, per (agent pair, task), or per agent pair (task
    #: "") past ``STORED_GROUPS_MAX`` groups: the Run screen's table starts from them (it showed
    #: only the pairs judged since the resume; a new user's finding)
    stored: list[StoredCount] = field(default_factory=list)


@dataclass(frozen=True)
class PhaseStarted:
    phase: Phase
    total: int
    done: int


@dataclass(frozen=True)
class TrajectoryDone:
    traj_id: str
    agent: str
    task_id: str
    success: bool
    satisfied: bool
    ending: str


@dataclass(frozen=True)
class JudgeCallDone:
    pair_id: str
    order: Order
    attempt: int
    winner: Pref | None
    score_a: float | None
    score_b: float | None
    reason: str
    parse_error: str | None
    raw_output: str


@dataclass(frozen=True)
class PairDone:
    pair_id: str
    agent_a: str
    agent_b: str
    success_a: bool
    success_b: bool
    judge_pref: Pref
    misselected: bool
    #: the pair's task: the Run screen clusters its live misselection interval by task ("" in
    #: an event stream written before the field: no interval then)
    task_id: str = ""


@dataclass(frozen=True)
class Progress:
    phase: Phase
    done: int
    total: int
    calls: int
    tokens: int
    cost_usd: float
    retries: int
    failures: int
    elapsed_s: float
    calls_per_s: float
    eta_s: float | None
    limits: dict[str, list[int]]  # endpoint -> [in flight, limit]
    #: endpoint -> pacing in force: mode (declared|adaptive), rps (None = unpaced), rpm, tpm,
    #: rate_limited (429s seen)
    rate_limits: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class UnitFailed:
    unit: str
    message: str


@dataclass(frozen=True)
class RunFinished:
    run_id: str
    out_dir: str
    complete: bool
    elapsed_s: float
    summary: dict[str, Any]
    failures: int = 0  # units that failed for good (rerun to retry them)
    last_failure: str | None = None  # why the last of them failed


Event = (
    RunStarted
    | PhaseStarted
    | TrajectoryDone
    | JudgeCallDone
    | PairDone
    | Progress
    | UnitFailed
    | RunFinished
)


class EventSink(Protocol):
    def __call__(self, event: Event, /) -> None: ...  # positional: list.append fits


def event_json(event: Event) -> dict[str, Any]:
    return {"event": _snake(type(event).__name__), **asdict(event)}


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


EVENT_TYPES: tuple[type[Any], ...] = (
    RunStarted,
    PhaseStarted,
    TrajectoryDone,
    JudgeCallDone,
    PairDone,
    Progress,
    UnitFailed,
    RunFinished,
)
_BY_NAME = {_snake(cls.__name__): cls for cls in EVENT_TYPES}


def event_from_json(data: dict[str, Any]) -> Event:
    """The event :func:`event_json` wrote (the app reads a run in another process this way)."""
    fields = dict(data)
    kind = _BY_NAME[str(fields.pop("event"))]
    event: Event = kind(**fields)
    return event

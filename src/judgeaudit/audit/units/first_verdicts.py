"""A re-judge stops early when its first pairs all got no verdict on any order.

A typo'd ``--judge-model`` (which the embedded provider answers with chat filler) or a model
whose replies carry no verdict fails every order alike: the demo's re-judge made all 2,520
judge calls before it said so. Judging is all a re-judge does, so once :data:`FIRST_PAIRS`
pairs on :data:`FIRST_TASKS` tasks or more got no verdict, before any order got one, it stops;
one verdict anywhere and it runs to the end, where the documented warning covers orders left
without one. Pairs are judged task by task, so a judge that fails on one task only (a refusal,
a transcript too long for it) is not stopped for a typo. The stopped run is undone (the runner
discards it): a rerun starts afresh instead of resuming pairs that hold no verdict.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from judgeaudit.audit.units.judging import PairJudgement
from judgeaudit.errors import CheckFailed
from judgeaudit.terminal import printable

#: Pairs (two orders each, every order after its re-asks) judged in this pass, all without a
#: verdict, that stop a re-judge: the first full batch at the default concurrency (16) and some,
#: few enough to stop in seconds, enough that a model that sometimes answers has answered.
FIRST_PAIRS = 20
#: ... on at least this many tasks (the pairs of one task come first).
FIRST_TASKS = 3
#: Characters of the judge's first reply the stop line quotes (scrubbed as stored).
REPLY_SHOWN = 100


class NoVerdictYet(CheckFailed):
    """The re-judge stopped: its first pairs got no verdict (exit 1; the run undone)."""

    def __init__(self, run_id: str, pairs: int, tasks: int, orders: int, reply: str) -> None:
        shown = printable(" ".join(reply.split()))
        if len(shown) > REPLY_SHOWN:
            shown = shown[: REPLY_SHOWN - 1] + "…"
        self.where = f"{orders} orders of the first {pairs} pairs, on {tasks} tasks"
        self.reply = f"the judge's first reply: {shown!r}" if shown else "the judge replied nothing"
        super().__init__(
            f"re-judge stopped: no verdict on any of {self.where}; nothing kept; {self.reply}"
        )
        self.run_id = run_id
        self.pairs = pairs


@dataclass
class FirstVerdicts:
    """Watches the pairs a pass judges until one order gets a verdict (``watching``: set by
    ``run_audit``'s ``stop_unjudged``, which ``rejudge`` asks for; a spec run never stops)."""

    watching: bool
    pairs: int = 0
    orders: int = 0
    tasks: set[str] = field(default_factory=set)
    reply: str = ""

    def saw(self, judged: PairJudgement, run_id: str, task_id: str, replies: Iterable[str]) -> None:
        """One pair stored; raises :class:`NoVerdictYet` once, when the rule says stop."""
        if not self.watching:
            return
        if judged.parsed_ab or judged.parsed_ba:
            self.watching = False  # one verdict: a partial failure is the end's warning
            return
        self.pairs += 1
        self.orders += 1 if judged.pref_ba is None else 2
        self.tasks.add(task_id)
        self.reply = self.reply or next((r for r in replies if r.strip()), "")
        if self.pairs >= FIRST_PAIRS and len(self.tasks) >= FIRST_TASKS:
            self.watching = False  # pairs still in flight are undone with the run
            raise NoVerdictYet(run_id, self.pairs, len(self.tasks), self.orders, self.reply)

"""A re-judge stops early when its first pairs all got no verdict on any order.

A typo'd ``--judge-model`` (which the embedded provider answers with chat filler) or a model
whose replies carry no verdict fails every order alike: the demo's re-judge made all 2,520
judge calls before it said so. Judging is all a re-judge does, so after the first
:data:`FIRST_PAIRS` pairs of a pass without one verdict it stops; one verdict anywhere and it
runs to the end, where the documented warning covers orders left without one.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgeaudit.audit.units.judging import PairJudgement
from judgeaudit.errors import CheckFailed

#: Pairs (two orders each, every order after its re-asks) judged in this pass, all without a
#: verdict, that stop a re-judge: the first full batch at the default concurrency (16) and some,
#: few enough to stop in seconds, enough that a model that sometimes answers has answered.
FIRST_PAIRS = 20


class NoVerdictYet(CheckFailed):
    """The re-judge stopped: its first pairs got no verdict (exit 1; the run kept, incomplete)."""

    def __init__(self, run_id: str, pairs: int) -> None:
        super().__init__(
            f"re-judge stopped: the judge gave no verdict on any order of the first {pairs}"
            f" pairs (run {run_id} kept, incomplete); check the judge model and rerun"
        )
        self.run_id = run_id
        self.pairs = pairs


@dataclass
class FirstVerdicts:
    """Watches the pairs a pass judges until one order gets a verdict (``watching``: set by
    ``run_audit``'s ``stop_unjudged``, which ``rejudge`` asks for; a spec run never stops)."""

    watching: bool
    pairs: int = 0

    def saw(self, judged: PairJudgement, run_id: str) -> None:
        if not self.watching:
            return
        if judged.parsed_ab or judged.parsed_ba:
            self.watching = False  # one verdict: a partial failure is the end's warning
            return
        self.pairs += 1
        if self.pairs >= FIRST_PAIRS:
            raise NoVerdictYet(run_id, self.pairs)

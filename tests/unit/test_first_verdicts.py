"""The early stop of a re-judge (`first_verdicts.py`): when it stops and when it never does."""

from __future__ import annotations

import pytest

from judgeaudit.audit.units.first_verdicts import (
    FIRST_PAIRS,
    FIRST_TASKS,
    FirstVerdicts,
    NoVerdictYet,
)
from judgeaudit.audit.units.judging import PairJudgement


def pair(verdict: bool) -> PairJudgement:
    return PairJudgement("A", "B", "A", None, None, parsed_ab=verdict, parsed_ba=False)


def test_one_task_without_verdicts_does_not_stop_a_judge_that_fails_only_there() -> None:
    watch = FirstVerdicts(watching=True)
    for _ in range(3 * FIRST_PAIRS):  # a refusal on one task's transcripts: many pairs, 1 task
        watch.saw(pair(False), "r", "t1", ["I cannot help with that"])
    for task in [f"t{n}" for n in range(2, FIRST_TASKS)]:
        watch.saw(pair(False), "r", task, [])
    with pytest.raises(NoVerdictYet) as stopped:
        watch.saw(pair(False), "r", "t-last", [])
    assert "on 3 tasks" in stopped.value.where and stopped.value.pairs == 3 * FIRST_PAIRS + 2
    assert stopped.value.reply == "the judge's first reply: 'I cannot help with that'"
    watch.saw(pair(False), "r", "t-more", [])  # pairs in flight after the stop: no second stop


def test_a_judge_that_answers_at_times_is_never_stopped() -> None:
    watch = FirstVerdicts(watching=True)
    for n in range(FIRST_PAIRS - 1):
        watch.saw(pair(False), "r", f"t{n}", ["filler"])
    watch.saw(pair(True), "r", "t-last", ['{"winner": "A"}'])  # one verdict: runs to the end
    for n in range(5 * FIRST_PAIRS):
        watch.saw(pair(False), "r", f"u{n}", ["filler"])


def test_the_reply_quoted_is_cut_and_shown_printable() -> None:
    watch = FirstVerdicts(watching=True)
    long = "line\x1b[31m red\n" + "x" * 500
    with pytest.raises(NoVerdictYet) as stopped:
        for n in range(FIRST_PAIRS):
            watch.saw(pair(False), "r", f"t{n}", ["", long])
    reply = stopped.value.reply
    assert "\x1b" not in reply and "\n" not in reply and reply.endswith("…'")
    assert len(reply) < 140

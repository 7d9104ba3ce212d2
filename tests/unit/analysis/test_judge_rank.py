"""Which rate ranks the judges (analysis/judge_rank.py): the frontier and the change printed
against the best are the rank key's (the tie-aware rate), not misselection's: an always-tie
judge (0.0% misselection, 50% tie-aware) carried the ``*`` and read ``worse (-6.5 pts)``."""

from __future__ import annotations

from typing import Any

from judgeaudit.analysis.judge_rank import beats, order, versus, versus_cell


def judge(run: str, tie_aware: float | None, missel: float, tokens: int) -> dict[str, Any]:
    return {"run_id": run, "measured": True, "tie_aware": {"rate": tie_aware},
            "misselection": {"rate": missel}, "tokens": tokens}  # fmt: skip


GOOD = judge("good", 0.126, 0.065, 100)
ALWAYS_TIE = judge("tie", 0.5, 0.0, 100)  # the demo's figures, by hand from its audit.db


def test_an_always_tie_judge_is_beaten_and_ranked_after() -> None:
    assert beats(GOOD, ALWAYS_TIE, "tokens") and not beats(ALWAYS_TIE, GOOD, "tokens")
    assert sorted([ALWAYS_TIE, GOOD], key=order) == [GOOD, ALWAYS_TIE]
    cheaper = judge("cheap", 0.5, 0.0, 90)  # fewer tokens: unbeaten on cost
    assert not beats(GOOD, cheaper, "tokens")
    assert beats(GOOD, judge("none", None, 0.0, 100), "tokens")


def result(verdict: str, worse_on: list[str], tie: float, missel: float) -> dict[str, Any]:
    return {
        "overall": {"change": missel, "ci_low": None, "ci_high": None, "upper": None,
                    "tie_aware": {"change": tie, "ci_low": None, "ci_high": None, "upper": None}},
        "gate": {"verdict": verdict, "worse_on": worse_on},
    }  # fmt: skip


def test_the_change_beside_the_verdict_is_the_one_it_came_from() -> None:
    assert versus_cell(None) == "best"
    tie = versus(result("worse", ["tie-aware"], 0.374, -0.065))
    assert versus_cell(tie) == "worse (+37.4 pts)" and tie["misselection"]["change"] == -0.065
    assert versus_cell(versus(result("inconclusive", [], 0.019, -0.024))) == (
        "inconclusive (+1.9 pts)"
    )
    # failed on misselection alone, with the tie-aware rate down: the cell names misselection
    assert versus_cell(versus(result("worse", ["misselection"], -0.01, 0.031))) == (
        "worse (missel. +3.1 pts)"
    )


def test_a_recorded_prompt_label_is_not_cut_into_anothers() -> None:
    """A new user: recorded runs labelled ``prompt-v1`` and ``prompt-v9`` both read
    ``prompt-v`` in `judges` (cut at 8, as a hex digest is)."""
    from judgeaudit.analysis.leaderboard import prompt_cell

    assert prompt_cell("prompt-v1") != prompt_cell("prompt-v9")
    assert prompt_cell("prompt-v1") == "prompt-v1"
    assert prompt_cell("3f2a9c0d11e4b5a6") == "3f2a9c0d"  # a digest: git's short form
    assert prompt_cell("x" * 30) == "x" * 23 + "…"
    assert prompt_cell(None) == ""

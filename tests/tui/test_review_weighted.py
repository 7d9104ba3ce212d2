"""Review shows the agreement weighted back to the audit (issue 21 item 9): the weighted
agreement and Cohen's kappa with their stratified-bootstrap intervals and the sample size a
20-point interval needs. The reference kappa is sklearn's with inverse-sampling-probability
weights, the strata counted here from the pairs table by the review's rules."""

from __future__ import annotations

import asyncio
import math
import sqlite3
from pathlib import Path

import numpy as np
from sklearn.metrics import cohen_kappa_score
from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.review import ReviewScreen
from tests.tui.helpers import SIZE, make_app, press


def stratum(score_a: float, score_b: float, sa: int, sb: int, consistent: int, missel: int) -> str:
    if (score_a is not None and score_a >= 4 and sa == 0) or (
        score_b is not None and score_b >= 4 and sb == 0
    ):
        return "satisfied_but_failed"
    if consistent == 0:
        return "inconsistent"
    if missel == 1:
        return "misselected"
    return "control"


def reference(out: Path) -> tuple[float, float, int]:
    """(weighted agreement, weighted kappa) of judge vs the stored labels, and the suggested n
    for a 20-point interval (1.96² · 0.25 / 0.1² times Kish's design effect of the strata)."""
    db = sqlite3.connect(out / "audit.db")
    pairs = db.execute(
        "SELECT pair_id, judge_score_a, judge_score_b, success_a, success_b, "
        "COALESCE(consistent, 1), COALESCE(misselected, 0), judge_pref FROM audit_pairs"
    ).fetchall()
    labels = dict(db.execute("SELECT pair_id, human_pref FROM human_labels").fetchall())
    db.close()
    strata = {p[0]: stratum(*p[1:7]) for p in pairs}
    population = {s: list(strata.values()).count(s) for s in set(strata.values())}
    labelled = [p for p in pairs if labels.get(p[0])]
    per_stratum = {s: sum(strata[p[0]] == s for p in labelled) for s in population}
    w = np.array([population[strata[p[0]]] / per_stratum[strata[p[0]]] for p in labelled])
    judge = [p[7] for p in labelled]
    human = [labels[p[0]] for p in labelled]
    kappa = cohen_kappa_score(judge, human, sample_weight=w)
    agree = float(w[np.array(judge) == np.array(human)].sum() / w.sum())
    sizes = list(population.values())
    deff = len(sizes) * sum(n * n for n in sizes) / sum(sizes) ** 2
    need = math.ceil(deff * 1.959963984540054**2 * 0.25 / 0.1**2)
    return agree, float(kappa), min(need, len(pairs))  # never more than the run's pairs


def test_review_shows_weighted_agreement_and_kappa_with_intervals(
    isolated: ProfileStore, run_copy: Path
) -> None:
    async def go() -> tuple[str, str]:
        app = make_app(isolated, run_copy)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f5")
            review = app.screen
            assert isinstance(review, ReviewScreen)
            for pref in "ababbaab" * 5:  # a reviewer who disagrees now and then: the whole
                await press(pilot, pref, "1", "n")  # sample of 40, two or more per stratum
            await press(pilot, "m")  # the method note, whole (the figures name the key)
            note = str(app.screen.query_one("#review-method-text", Static).render())
            return str(review.query_one("#review-figures", Static).render()), note

    shown, note = asyncio.run(go())
    agree, kappa, need = reference(run_copy)
    line = next(x for x in shown.splitlines() if x.startswith("judge vs human: "))
    assert line.startswith("judge vs human: 40 pairs, as labelled ")
    weighted = line.split("weighted to the audit: ")[1]
    assert weighted.startswith(f"agreement {agree * 100:.1f}% ")
    assert f"kappa {kappa:.2f} [" in weighted  # with its interval
    low, high = (
        float(v) for v in weighted.split("kappa ")[1].split("[")[1].rstrip("]").split(", ")
    )
    assert low <= round(kappa, 2) <= high
    assert "success check vs human: " in shown and "conversations" in shown
    assert "stratified Jeffreys" in note and "Rao-Wu) of labelled tasks within strata" in note
    assert need == 126, "this run has fewer pairs than the interval would need"
    assert f"needs every one of the run's {need} pairs labelled" in shown

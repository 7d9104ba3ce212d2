"""The weighted review's strata: a review labelling every pair of each stratum it weighs is
told why it has no interval (not "label more"), and each stratum's random draws are its own,
so labels coming in another order, or another stratum labelled, move no stratum's part."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from scipy.stats import beta

from judgeaudit.analysis.fmt import review_lines
from judgeaudit.analysis.review_weights import weighted_figures


def test_a_review_of_every_pair_says_the_figures_are_exact_not_label_more() -> None:
    """A user's trial: all 40 pairs of a run labelled, kappa 0.63, and the note said "none
    where every resample gives the same kappa: all labels agree, or one side gives one label
    only; label more": neither was true, and no more labels exist."""
    x = ["A", "B", "A", "B", "A", "tie"]
    y = ["A", "B", "B", "B", "A", "A"]
    strata = ["control"] * 3 + ["misselected"] * 2 + ["inconsistent"]
    population = {"control": 3, "misselected": 2, "inconsistent": 1}
    found = weighted_figures(x, y, strata, population, ["t1", "t1", "t2", "t3", "t4", "t4"])
    assert found["weighted_agreement_ci"] is None and found["weighted_kappa_ci"] is None
    assert found["interval"] == (
        "none: every pair of each stratum weighed (control, inconsistent, misselected) is "
        "labelled, so the figures are those pairs' exactly, with no sampling spread"
    )
    # by hand: every weight 1, agreement 4/6; kappa over categories A, B, tie:
    # observed 4/6, expected (3/6)(3/6) + (2/6)(3/6) + (1/6)(0) = 15/36
    assert found["weighted_agreement"] == pytest.approx(4 / 6)
    assert found["weighted_kappa"] == pytest.approx((4 / 6 - 15 / 36) / (1 - 15 / 36))
    line = review_lines({"labelled": 6, "judge_vs_human": _part(found)})[2]
    assert "every pair of each stratum weighed" in line and "label more" not in line
    # a stratum with pairs but no label is named: the exact figures are not the run's
    partly = weighted_figures(x[:5], y[:5], strata[:5], {**population, "inconsistent": 9})
    assert partly["interval"].endswith("; strata with no label (inconsistent) are not in them")


def _part(found: dict[str, object]) -> dict[str, object]:
    return {"n": 6, "agreement": 4 / 6, "kappa": 0.4, "confusion": {}, **found}


def _labels() -> tuple[list[str], list[str], list[str], list[int]]:
    """Three strata, each labelled from several tasks, none whole."""
    x = ["A", "B", "A", "B", "A", "B", "A", "A", "B", "A", "B", "B"]
    y = ["A", "B", "B", "B", "A", "A", "A", "A", "B", "B", "B", "A"]
    strata = ["control"] * 5 + ["misselected"] * 4 + ["inconsistent"] * 3
    return x, y, strata, list(range(12))


POPULATION = {"control": 500, "misselected": 40, "inconsistent": 30}


def test_the_order_labels_come_in_moves_no_interval() -> None:
    """Before, the strata and tasks drew from one random stream in the order they first
    appeared: the same labels imported in another order gave another interval."""
    x, y, strata, tasks = _labels()
    first = weighted_figures(x, y, strata, POPULATION, tasks)
    order = [11, 5, 0, 9, 2, 7, 4, 10, 1, 6, 3, 8]  # misselected's and inconsistent's first
    again = weighted_figures(
        [x[i] for i in order], [y[i] for i in order], [strata[i] for i in order], POPULATION,
        [tasks[i] for i in order],
    )  # fmt: skip
    assert first["weighted_kappa_ci"] is not None
    assert again["weighted_agreement_ci"] == first["weighted_agreement_ci"]
    assert again["weighted_kappa_ci"] == first["weighted_kappa_ci"]


def _by_hand(labels: dict[str, tuple[int, int]], population: dict[str, int]) -> list[float]:
    """The stratified Jeffreys interval of one-label-a-task strata, drawn with scipy's Beta
    from each stratum's own generator (seed 0 and the CRC-32 of its name, as documented)."""
    total = sum(population[s] for s in labels)
    draws = np.zeros(4000)
    for s, (k, n) in labels.items():
        rng = np.random.default_rng([0, zlib.crc32(s.encode())])
        draws += population[s] / total * beta.rvs(k + 0.5, n - k + 0.5, size=4000, random_state=rng)
    return [float(v) for v in np.percentile(draws, [2.5, 97.5])]


def test_a_strata_draws_are_its_own_whichever_other_is_labelled() -> None:
    """Adding a stratum, its labels first, leaves control's draws as they were: each
    stratum's part of the interval depends on it alone (by hand, scipy's Beta from each
    stratum's own seed)."""
    x, y, strata, tasks = _labels()
    alone = weighted_figures(x[:5], y[:5], strata[:5], POPULATION, tasks[:5])
    assert alone["weighted_agreement_ci"] == pytest.approx(
        _by_hand({"control": (4, 5)}, POPULATION), rel=1e-9
    )
    both = weighted_figures(x[5:9] + x[:5], y[5:9] + y[:5], strata[5:9] + strata[:5],
                            POPULATION, tasks[5:9] + tasks[:5])  # fmt: skip
    assert both["weighted_agreement_ci"] == pytest.approx(
        _by_hand({"misselected": (3, 4), "control": (4, 5)}, POPULATION), rel=1e-9
    )

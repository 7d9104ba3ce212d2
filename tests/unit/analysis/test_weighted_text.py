"""The weighted agreement line says when a figure has no interval, as the as-labelled one does:
a bare `kappa 0.00` beside `Cohen's kappa 0.00 [no CI]` read as a certain kappa (a new user of
the app's Review screen)."""

from __future__ import annotations

from judgeaudit.analysis.fmt import as_labelled, weighted


def test_a_weighted_kappa_without_an_interval_says_so() -> None:
    part = {
        "weighted_agreement": 0.439,
        "weighted_agreement_ci": [0.243, 0.649],
        "weighted_kappa": 0.0,
        "weighted_kappa_ci": None,
        "interval": "agreement: stratified Jeffreys; kappa: none yet",
    }
    assert weighted(part).startswith("agreement 43.9% [24.3, 64.9], kappa 0.00 [no CI] (95%: ")


def test_with_intervals_and_without_any() -> None:
    both = {
        "weighted_agreement": 0.554,
        "weighted_agreement_ci": [0.323, 0.764],
        "weighted_kappa": 0.11,
        "weighted_kappa_ci": [-0.28, 0.51],
    }
    assert weighted(both).startswith("agreement 55.4% [32.3, 76.4], kappa 0.11 [-0.28, 0.51] (")
    census = {"weighted_agreement": 0.5, "weighted_kappa": 0.25}  # every stratum labelled
    assert weighted(census).startswith("agreement 50.0% [no CI], kappa 0.25 [no CI] (")
    labelled = {"agreement": 0.5, "kappa": 0.0}
    assert as_labelled(labelled) == "agreement 50.0% [no CI], Cohen's kappa 0.00 [no CI]"

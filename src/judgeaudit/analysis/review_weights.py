"""Human-review agreement weighted back to the audit, with a stratified bootstrap interval.

The review sample is stratified with very unequal strata (a few hundred satisfied-but-failed
pairs, thousands of controls, equal shares of each in the sample), so an unweighted kappa
describes the sample, not the audit. Each labelled item is weighted by the inverse of its
stratum's sampling probability (stratum size in the run / labelled items of the stratum); the
interval resamples labelled items with replacement *within* each stratum (the design's own
bootstrap). The success check is compared per conversation: a conversation labelled in
several pairs counts once (its first label).
"""

from __future__ import annotations

import copy
import functools
import math
from typing import Any

import numpy as np
import pandas as pd

from judgeaudit.analysis.stats import Z95
from judgeaudit.audit.units.verdict_parse import SATISFIED_AT

STRATA = ("satisfied_but_failed", "inconsistent", "misselected", "control")
RESAMPLES = 1000
SEED = 0


def stratum_of(pairs: pd.DataFrame, threshold: float = SATISFIED_AT) -> pd.Series:
    """Each pair's stratum: the first of STRATA whose rule it meets (a partition of the run)."""
    sbf = ((pairs["judge_score_a"] >= threshold) & (pairs["success_a"] == 0)) | (
        (pairs["judge_score_b"] >= threshold) & (pairs["success_b"] == 0)
    )
    inconsistent = pairs["consistent"].fillna(1).astype(int) == 0
    misselected = pairs["misselected"].fillna(0).astype(int) == 1
    out = pd.Series("control", index=pairs.index, dtype=object)
    out[misselected] = "misselected"
    out[inconsistent] = "inconsistent"
    out[sbf] = "satisfied_but_failed"
    return out


def weighted_kappa(x: list[Any], y: list[Any], w: np.ndarray) -> tuple[float | None, float | None]:
    """(agreement, Cohen's kappa) with item weights ``w`` (sklearn's sample_weight kappa)."""
    total = float(w.sum())
    if not len(x) or total <= 0:
        return None, None
    xs, ys = np.asarray(x, dtype=object), np.asarray(y, dtype=object)
    observed = float(w[xs == ys].sum()) / total
    categories = sorted(set(x) | set(y), key=str)
    expected = sum(
        float(w[xs == c].sum()) / total * float(w[ys == c].sum()) / total for c in categories
    )
    if expected >= 1.0:
        return observed, None
    return observed, (observed - expected) / (1 - expected)


#: Labelled items a stratum needs before the stratified bootstrap can give an interval: a
#: stratum of one is resampled as itself, so 5 labels over 4 strata gave "77.8–100.0%" and a
#: kappa interval of zero width (a new user's trial).
MIN_PER_STRATUM = 2


def weighted_figures(
    x: list[Any], y: list[Any], strata: list[str], population: dict[str, int]
) -> dict[str, Any]:
    """Weighted agreement and kappa, each with a stratified-bootstrap 95% interval.

    Cached on its inputs: the Review screen recomputes the figures on every item it shows,
    and the labels change only when one is edited (the bootstrap takes ~0.5 s)."""
    found = _weighted(tuple(x), tuple(y), tuple(strata), tuple(sorted(population.items())))
    return copy.deepcopy(found)


@functools.lru_cache(maxsize=32)
def _weighted(
    x_in: tuple[Any, ...],
    y_in: tuple[Any, ...],
    strata_in: tuple[str, ...],
    population_in: tuple[tuple[str, int], ...],
) -> dict[str, Any]:
    x, y, strata, population = list(x_in), list(y_in), list(strata_in), dict(population_in)
    labelled = {s: strata.count(s) for s in sorted(set(strata))}
    weight = {s: population.get(s, 0) / n for s, n in labelled.items()}
    w = np.array([weight[s] for s in strata], dtype=float)
    agreement, kappa = weighted_kappa(x, y, w)
    # resampling one item gives it no spread, so the interval would be far too narrow, unless
    # that item is the whole stratum (a census has no sampling spread)
    short = [s for s, n in labelled.items() if n < min(MIN_PER_STRATUM, population.get(s, 0))]
    if short:
        return {
            "weighted_agreement": agreement,
            "weighted_agreement_ci": None,
            "weighted_kappa": kappa,
            "weighted_kappa_ci": None,
            "stratum_weights": {s: weight[s] for s in sorted(weight)},
            "interval": f"none yet: a stratified bootstrap needs {MIN_PER_STRATUM} labelled "
            f"pairs in each stratum it weighs, and {', '.join(short)} has 1; label more",
        }
    rng = np.random.default_rng(SEED)
    index = {s: np.flatnonzero(np.asarray(strata, dtype=object) == s) for s in labelled}
    agreements, kappas = [], []
    for _ in range(RESAMPLES):
        pick = np.concatenate([rng.choice(ix, size=len(ix), replace=True) for ix in index.values()])
        a, k = weighted_kappa([x[i] for i in pick], [y[i] for i in pick], w[pick])
        if a is not None:
            agreements.append(a)
        if k is not None:
            kappas.append(k)

    def limits(values: list[float]) -> list[float] | None:
        # every resample giving the same figure (all labels agree, or one side's labels are one
        # category: kappa 0 by construction) is no evidence of certainty:
        # a zero-width "[100.0, 100.0]" would claim it, so no interval (a new user's trial)
        if not values or max(values) == min(values):
            return None
        return [float(v) for v in np.percentile(values, [2.5, 97.5])]

    method = f"stratified bootstrap, {RESAMPLES} resamples within strata, seed {SEED}"
    cis = limits(agreements), limits(kappas)
    if (agreement is not None and cis[0] is None) or (kappa is not None and cis[1] is None):
        method += (
            "; none where every resample gives the same figure (all labels agree, or one side"
            " gives one label only): label more"
        )
    return {
        "weighted_agreement": agreement,
        "weighted_agreement_ci": cis[0],
        "weighted_kappa": kappa,
        "weighted_kappa_ci": cis[1],
        "stratum_weights": {s: weight[s] for s in sorted(weight)},
        "interval": method,
    }


def kish_design_effect(population: dict[str, int]) -> float:
    """Kish's design effect of equal shares per non-empty stratum: K * sum(N_h^2) / N^2."""
    sizes = [n for n in population.values() if n > 0]
    total = sum(sizes)
    return len(sizes) * sum(n * n for n in sizes) / total**2 if total else 1.0


def suggested_n(population: dict[str, int], width: float, agreement: float = 0.5) -> int:
    """Labelled pairs needed for a 95% interval of total ``width`` on the weighted agreement:
    the binomial n at ``agreement`` (0.5: the worst case) times the weights' design effect,
    never more than the pairs there are (a 252-pair run was told to label 253)."""
    half = width / 2
    n = kish_design_effect(population) * Z95**2 * agreement * (1 - agreement) / half**2
    need = max(len([v for v in population.values() if v > 0]), math.ceil(n))
    return min(need, sum(population.values()))

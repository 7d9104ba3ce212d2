"""Human-review agreement weighted back to the audit, with a bootstrap interval by stratum.

The review sample is stratified with very unequal strata (a few hundred satisfied-but-failed
pairs, thousands of controls, equal shares of each in the sample), so an unweighted kappa
describes the sample, not the audit. Each labelled item is weighted by the inverse of its
stratum's sampling probability (stratum size in the run / labelled items of the stratum); the
interval resamples labelled *tasks* within each stratum with the Rao-Wu rescaling (the pairs of
one task share its conversations; a plain bootstrap of two labels understates the spread by
half). The success check is compared per conversation: a conversation labelled in
several pairs counts once (its first label).
"""

from __future__ import annotations

import copy
import functools
import math
import zlib
from typing import Any

import numpy as np
import pandas as pd

from judgeaudit.analysis.clustered import Sums, design_effect
from judgeaudit.analysis.noninferiority import t_quantile
from judgeaudit.analysis.stats import Z95
from judgeaudit.score_scale import SATISFIED_AT

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


#: Tasks a stratum's labels must span before the bootstrap can give an interval: a stratum
#: whose labels come from one task is resampled as itself, so 5 labels over 4 strata gave
#: "77.8–100.0%" and a kappa interval of zero width (a new user's trial).
MIN_PER_STRATUM = 2


def weighted_figures(
    x: list[Any],
    y: list[Any],
    strata: list[str],
    population: dict[str, int],
    tasks: list[Any] | None = None,
    per_pair: bool = True,
) -> dict[str, Any]:
    """Weighted agreement with its stratified Jeffreys 95% interval, and weighted kappa with a
    rescaled bootstrap of the labelled tasks within strata (``tasks``: each item's task; None:
    each item its own). ``per_pair``: the items are pairs, so a stratum labelled as many times
    as it holds pairs is a census (the success check's items are conversations: never one).

    Cached on its inputs: the Review screen recomputes the figures on every item it shows,
    and the labels change only when one is edited."""
    clusters = tuple(tasks) if tasks is not None else tuple(range(len(x)))
    found = _weighted(
        tuple(x), tuple(y), tuple(strata), tuple(sorted(population.items())), clusters, per_pair
    )
    return copy.deepcopy(found)


def _none_yet(short: list[str]) -> str:
    return (
        f"none yet: the bootstrap needs labelled pairs from {MIN_PER_STRATUM} tasks in each "
        f"stratum it weighs, and these have them from one: {', '.join(short)}; label more"
    )


@functools.lru_cache(maxsize=32)
def _weighted(
    x_in: tuple[Any, ...],
    y_in: tuple[Any, ...],
    strata_in: tuple[str, ...],
    population_in: tuple[tuple[str, int], ...],
    tasks_in: tuple[Any, ...],
    per_pair: bool,
) -> dict[str, Any]:
    x, y, strata, population = list(x_in), list(y_in), list(strata_in), dict(population_in)
    labelled = {s: strata.count(s) for s in sorted(set(strata))}
    weight = {s: population.get(s, 0) / n for s, n in labelled.items()}
    w = np.array([weight[s] for s in strata], dtype=float)
    agreement, kappa = weighted_kappa(x, y, w)
    # a stratum labelled whole (a census) has no sampling spread and is kept as it is; any
    # other needs labels from two tasks, or its resample is itself and the interval too narrow
    # (``population`` counts pairs: conversations, two a pair, never make a census)
    census = {s for s, n in labelled.items() if per_pair and n >= population.get(s, 0)}
    groups = _stratum_tasks(strata, tasks_in)
    figures = {
        "weighted_agreement": agreement,
        "weighted_kappa": kappa,
        "stratum_weights": {s: weight[s] for s in sorted(weight)},
    }
    if groups and census == set(groups):
        return {
            **figures,
            "weighted_agreement_ci": None,
            "weighted_kappa_ci": None,
            "interval": _all_census(sorted(census), population),
        }
    agree = np.array([a == b for a, b in zip(x, y, strict=True)], dtype=float)
    agreement_ci = _jeffreys(agree, groups, population, census)
    short = [s for s in groups if s not in census and len(groups[s]) < MIN_PER_STRATUM]
    if short:
        return {
            **figures,
            "weighted_agreement_ci": agreement_ci,
            "weighted_kappa_ci": None,
            "interval": f"{AGREEMENT_METHOD}; kappa: {_none_yet(short)}",
        }
    kappas = _resampled_kappas(x, y, w, {s: g for s, g in groups.items() if s not in census})
    # rounded: rescaled weights leave a kappa of 0 by construction at +-1e-15 in some draws
    kappas = np.round(kappas[~np.isnan(kappas)], 12)
    # every resample giving the same kappa (one side gives one label only: 0 by construction,
    # or all labels agree) is no evidence of certainty: a zero-width "[1.00, 1.00]" would claim
    # it, so no interval (a new user's trial)
    kappa_ci = None
    if len(kappas) and np.ptp(kappas) > 0:
        kappa_ci = [float(v) for v in np.percentile(kappas, [2.5, 97.5])]
    method = f"{AGREEMENT_METHOD}; kappa: {KAPPA_METHOD}"
    if kappa is not None and kappa_ci is None:
        method += (
            " (none where every resample gives the same kappa: all labels agree, or one side"
            " gives one label only; label more)"
        )
    return {
        **figures,
        "weighted_agreement_ci": agreement_ci,
        "weighted_kappa_ci": kappa_ci,
        "interval": method,
    }


def _all_census(strata: list[str], population: dict[str, int]) -> str:
    """Why there is no interval when every stratum labelled is labelled whole: not for want of
    labels (a review labelling all 40 pairs of a run was told "all labels agree ...; label
    more"), but because the figures are those pairs' own, with no sampling spread."""
    text = (
        f"none: every pair of each stratum weighed ({', '.join(strata)}) is labelled, so the"
        " figures are those pairs' exactly, with no sampling spread"
    )
    unlabelled = sorted(s for s, n in population.items() if n > 0 and s not in strata)
    if unlabelled:
        text += f"; strata with no label ({', '.join(unlabelled)}) are not in them"
    return text


def _stratum_tasks(strata: list[str], tasks: tuple[Any, ...]) -> dict[str, list[np.ndarray]]:
    """Per stratum, its labelled items grouped by task, strata and tasks in a fixed order (the
    order labels come in moves nothing): the units both intervals draw (the pairs of one task
    share its conversations, so they are not independent draws). The one grouping the
    Jeffreys interval and the bootstrap share."""
    found: dict[str, dict[Any, list[int]]] = {}
    for i, (stratum, task) in enumerate(zip(strata, tasks, strict=True)):
        found.setdefault(stratum, {}).setdefault(task, []).append(i)
    return {
        s: [np.array(found[s][t]) for t in sorted(found[s], key=_task_key)] for s in sorted(found)
    }


def _task_key(task: Any) -> tuple[str, str]:
    return type(task).__name__, str(task)


def _stratum_rng(stratum: str) -> np.random.Generator:
    """A stratum's own random draws: seeded by SEED and the stratum's name (CRC-32), so a
    stratum's draws, and its part of an interval, do not move when another stratum is
    labelled or its labels come first."""
    return np.random.default_rng([SEED, zlib.crc32(stratum.encode())])


DRAWS = 4000


def _jeffreys(
    agree: np.ndarray,
    groups: dict[str, list[np.ndarray]],
    population: dict[str, int],
    census: set[str],
) -> list[float] | None:
    """The weighted agreement's 95% interval: per stratum a draw from the Jeffreys posterior
    Beta(k + 1/2, n - k + 1/2) of its agreement at the stratum's effective n (n over its task
    design effect, the report's own :func:`~judgeaudit.analysis.clustered.design_effect`: the
    labels of one task share its conversations), weighted by the stratum's share of the run
    (a census stratum as it is). A bootstrap gives a stratum whose labels all agree no spread
    at all, and the control stratum (most of the weight, agreement near 1) often does: it
    covered 70-89% (bench/review_weights_coverage.py)."""
    total = sum(population.get(s, 0) for s in groups)
    if not groups or total <= 0:
        return None
    draws, point = np.zeros(DRAWS), 0.0
    for s, by_task in groups.items():
        sums = Sums.of([(float(agree[ix].sum()), float(len(ix))) for ix in by_task])
        share, rate = population.get(s, 0) / total, sums.k / sums.n
        point += share * rate
        if s in census:
            draws += share * rate
            continue
        n_eff = sums.n / design_effect(sums)
        if 2 <= sums.clusters < sums.n:  # labels share tasks: the spread is known from few
            # tasks, so Korn and Graubard's degrees of freedom shrink n_eff by (z / t_(G-1))^2
            n_eff *= (Z95 / t_quantile(0.975, sums.clusters - 1)) ** 2
        k_eff = rate * n_eff
        draws += share * _stratum_rng(s).beta(k_eff + 0.5, n_eff - k_eff + 0.5, size=DRAWS)
    if np.ptp(draws) == 0:  # no stratum with a spread (its weight 0)
        return None
    low, high = (float(v) for v in np.percentile(draws, [2.5, 97.5]))
    # the prior pulls toward 1/2: where every label agrees the interval would end below the
    # figure itself, so it reaches it (the Brown-Cai-DasGupta rule for k = n, stratified)
    return [min(low, point), max(high, point)]


#: How the weighted figures get their intervals, as every output names them.
AGREEMENT_METHOD = (
    f"agreement: stratified Jeffreys (a Beta(k+1/2, n-k+1/2) draw per stratum at its task"
    f" design effect's effective n, weighted;"
    f" {DRAWS} draws, seed {SEED} and the stratum's name)"
)
KAPPA_METHOD = (
    f"rescaled bootstrap (Rao-Wu) of labelled tasks within strata, {RESAMPLES} resamples,"
    f" seed {SEED} and the stratum's name"
)


def _resampled_kappas(
    x: list[Any], y: list[Any], w: np.ndarray, groups: dict[str, list[np.ndarray]]
) -> np.ndarray:
    """Kappa in each resample. Rao-Wu with m = c - 1: each stratum draws c - 1
    of its c labelled tasks with replacement and scales their weight by c / (c - 1), so the
    stratum keeps its total weight and the spread is unbiased for a stratum mean's variance
    (drawing c of c understates it by (c - 1) / c: by half at two tasks)."""
    scale = np.ones((RESAMPLES, len(x)))
    for s, tasks in groups.items():  # a census stratum is not in groups: kept whole
        c = len(tasks)
        drawn = _stratum_rng(s).multinomial(c - 1, np.full(c, 1 / c), size=RESAMPLES)
        counts = drawn * (c / (c - 1))
        for j, items in enumerate(tasks):
            scale[:, items] = counts[:, [j]]
    weights = scale * w
    total = weights.sum(axis=1)
    xs, ys = np.asarray(x, dtype=object), np.asarray(y, dtype=object)
    with np.errstate(invalid="ignore", divide="ignore"):
        agreements = weights @ (xs == ys).astype(float) / total
        expected = (
            sum(
                (weights @ (xs == c).astype(float)) * (weights @ (ys == c).astype(float))
                for c in sorted(set(x) | set(y), key=str)
            )
            / total**2
        )
        # one category on a side gives expected 1 (kappa undefined), in floats 1 - 1e-16
        return np.where(expected < 1 - 1e-9, (agreements - expected) / (1 - expected), np.nan)


def kish_design_effect(population: dict[str, int]) -> float:
    """Kish's design effect of equal shares per non-empty stratum: K * sum(N_h^2) / N^2."""
    sizes = [n for n in population.values() if n > 0]
    total = sum(sizes)
    return len(sizes) * sum(n * n for n in sizes) / total**2 if total else 1.0


#: The default width of the weighted agreement's 95% interval a sample is sized for, in
#: percentage points (``review export --width`` and the app's Review screen).
WIDTH_POINTS = 20


def suggested_n(population: dict[str, int], width: float, agreement: float = 0.5) -> int:
    """Labelled pairs needed for a 95% interval of total ``width`` on the weighted agreement:
    the binomial n at ``agreement`` (0.5: the worst case) times the weights' design effect,
    never more than the pairs there are (a 252-pair run was told to label 253)."""
    half = width / 2
    n = kish_design_effect(population) * Z95**2 * agreement * (1 - agreement) / half**2
    need = max(len([v for v in population.values() if v > 0]), math.ceil(n))
    return min(need, sum(population.values()))

"""Small, exact statistics used by every report: Wilson intervals, Newcombe differences, kappa."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float | None, float | None]:
    """95% Wilson score interval for a proportion; (None, None) when n is 0."""
    if n <= 0:
        return None, None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_diff(
    k1: int, n1: int, k2: int, n2: int
) -> tuple[float | None, float | None, float | None]:
    """Difference p2 - p1 with Newcombe's hybrid score interval (method 10)."""
    if n1 <= 0 or n2 <= 0:
        return None, None, None
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    assert l1 is not None and u1 is not None and l2 is not None and u2 is not None
    diff = p2 - p1
    low = diff - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = diff + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return diff, low, high


def cohen_kappa(a: Sequence[object], b: Sequence[object]) -> float | None:
    """Cohen's kappa for two raters; 1.0 when both agree perfectly on a single category."""
    if len(a) != len(b) or not a:
        return None
    n = len(a)
    categories = sorted(set(a) | set(b), key=str)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    expected = sum((list(a).count(c) / n) * (list(b).count(c) / n) for c in categories)
    if expected >= 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1 - expected)


#: How :func:`kappa_interval`'s interval is made, as every output names it.
KAPPA_METHOD = (
    "asymptotic normal, Fleiss, Cohen & Everitt (1969) standard error with a design effect for "
    "task clustering (deff = max(1, cluster-robust delta-method variance / iid variance)), 95%"
)


def kappa_interval(
    a: Sequence[object], b: Sequence[object], clusters: Sequence[object] | None = None
) -> tuple[float | None, float | None]:
    """95% interval of :func:`cohen_kappa`, clustered by ``clusters`` (each item's task; None:
    one item a cluster), as the report's rates are (:mod:`judgeaudit.analysis.clustered`).

    The variance is the large-sample one of Fleiss, Cohen and Everitt (1969, not assuming
    kappa = 0) times a design effect: the cluster-robust (delta-method) variance, whose
    per-item terms summed over each task carry the items of one task as one unit, over the
    same variance with every item its own cluster (each with its own small-sample factor,
    G/(G-1) and n/(n-1), so one item a task gives exactly 1), never below 1; one task alone
    says nothing of its spread and counts its n items as one (deff = n), as
    :func:`~judgeaudit.analysis.clustered.design_effect` does. (None, None) when there is no
    interval (no items, one category only, where kappa is fixed by convention, or a standard
    error of 0, as one item or perfect agreement give: a zero-width interval would claim
    certainty); clipped to [-1, 1], where kappa lies."""
    if len(a) != len(b) or not a:
        return None, None
    n = len(a)
    cats = sorted(set(a) | set(b), key=str)
    p = {(x, y): 0.0 for x in cats for y in cats}
    for x, y in zip(a, b, strict=True):
        p[(x, y)] += 1 / n
    row = {c: sum(p[(c, y)] for y in cats) for c in cats}
    col = {c: sum(p[(x, c)] for x in cats) for c in cats}
    observed = sum(p[(c, c)] for c in cats)
    expected = sum(row[c] * col[c] for c in cats)
    if expected >= 1.0:
        return None, None
    k = (observed - expected) / (1 - expected)
    on = sum(p[(c, c)] * (1 - (row[c] + col[c]) * (1 - k)) ** 2 for c in cats)
    off = (1 - k) ** 2 * sum(
        p[(x, y)] * (col[x] + row[y]) ** 2 for x in cats for y in cats if x != y
    )
    variance = (on + off - (k - expected * (1 - k)) ** 2) / ((1 - expected) ** 2 * n)
    if observed_count(a, b) == n or variance <= 0:
        # one item, or perfect agreement: the large-sample error collapses (decided on counts:
        # rounding leaves a variance of ~1e-16 there, which printed [1.00, 1.00])
        return None, None
    if clusters is not None:
        # each item's term of kappa's linearisation (its influence, times 1 - expected)
        terms = [
            (x == y) - (1 - k) * (col[x] + row[y]) - (k - expected * (1 - k))
            for x, y in zip(a, b, strict=True)
        ]
        variance *= _kappa_design_effect(terms, list(clusters))
    half = Z95 * math.sqrt(variance)
    return max(-1.0, k - half), min(1.0, k + half)  # kappa lies in [-1, 1]


def observed_count(a: Sequence[object], b: Sequence[object]) -> int:
    """How many items the two raters label alike."""
    return sum(x == y for x, y in zip(a, b, strict=True))


def _kappa_design_effect(terms: Sequence[float], clusters: Sequence[object]) -> float:
    """The summed-by-cluster variance of ``terms`` (mean 0) over their iid variance, >= 1."""
    n = len(terms)
    per: dict[object, float] = {}
    for term, cluster in zip(terms, clusters, strict=True):
        per[cluster] = per.get(cluster, 0.0) + term
    groups = len(per)
    if groups <= 1:
        return float(max(1, n))
    iid = math.fsum(t * t for t in terms) * n / (n - 1)
    if iid <= 0:
        return 1.0
    robust = math.fsum(s * s for s in per.values()) * groups / (groups - 1)
    return max(1.0, robust / iid)


def confusion(a: Sequence[object], b: Sequence[object]) -> dict[str, dict[str, int]]:
    categories = sorted(set(a) | set(b), key=str)
    table = {str(x): {str(y): 0 for y in categories} for x in categories}
    for x, y in zip(a, b, strict=True):
        table[str(x)][str(y)] += 1
    return table


def newcombe_paired(
    both: int, only_first: int, only_second: int, neither: int
) -> tuple[float | None, float | None, float | None]:
    """Paired difference p2 - p1 with Newcombe's (1998) method 10 interval.

    p1 = (both + only_first) / n and p2 = (both + only_second) / n are the two marginal rates
    of the same n units; the Wilson limits of each are combined with the phi correlation of
    the 2x2 table (phi shrunk towards 0 by n/2 when positive, as the method prescribes).
    """
    n = both + only_first + only_second + neither
    if n <= 0:
        return None, None, None
    p1, p2 = (both + only_first) / n, (both + only_second) / n
    l1, u1 = wilson(both + only_first, n)
    l2, u2 = wilson(both + only_second, n)
    assert l1 is not None and u1 is not None and l2 is not None and u2 is not None
    margins = (both + only_first) * (only_second + neither) * (both + only_second)
    margins *= only_first + neither
    cross = both * neither - only_first * only_second
    corrected = cross - n / 2 if cross > n / 2 else (cross if cross < 0 else 0.0)
    phi = corrected / math.sqrt(margins) if margins > 0 else 0.0
    d = p1 - p2
    low_d = d - math.sqrt(
        max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    )
    high_d = d + math.sqrt(
        max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2)
    )
    return p2 - p1, -high_d, -low_d


def _log_binom_pmf(k: int, n: int, p: float) -> float:
    return (
        math.lgamma(n + 1)
        - math.lgamma(k + 1)
        - math.lgamma(n - k + 1)
        + k * math.log(p)
        + (n - k) * math.log(1 - p)
    )


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """Two-sided exact McNemar p-value: the discordant pairs as Binomial(m, 1/2)."""
    m = only_first + only_second
    if m == 0:
        return 1.0
    k = min(only_first, only_second)
    first = _first_nonzero(k, m)
    # _log_binom_pmf(i, m, 0.5) with its per-test parts computed once: the same operations in
    # the same order, so every term (and the sum) is bit for bit the same, at ~half the cost
    top, log_p = math.lgamma(m + 1), math.log(0.5)
    lgamma, exp = math.lgamma, math.exp
    tail = math.fsum(
        exp(top - lgamma(i + 1) - lgamma(m - i + 1) + i * log_p + (m - i) * log_p)
        for i in range(first, k + 1)
    )
    return min(1.0, 2 * tail)


#: Below this log, ``math.exp`` is exactly 0.0 (the smallest subnormal is e^-744.4).
_EXP_ZERO = -746.0


def _first_nonzero(k: int, m: int) -> int:
    """The first term of the tail 0..k (k <= m/2, where the pmf rises) whose ``exp`` is not 0.0.

    The terms before it add exactly 0.0 to the sum, so skipping them leaves every digit as it
    was while the report's McNemar tests over millions of pairs sum ~40·sqrt(m) terms, not m/2
    (it was most of a 5M-pair report's CPU)."""
    if _log_binom_pmf(0, m, 0.5) >= _EXP_ZERO:
        return 0
    low, high = 0, k  # log pmf(low) < limit; find the first index at or above it
    if _log_binom_pmf(high, m, 0.5) < _EXP_ZERO:
        return k + 1
    while high - low > 1:
        mid = (low + high) // 2
        if _log_binom_pmf(mid, m, 0.5) < _EXP_ZERO:
            low = mid
        else:
            high = mid
    return high


def _log_hypergeom(x: int, total: int, n1: int, n2: int) -> float:
    """log P(x of the ``total`` successes fall in group 1 of n1), groups of n1 and n2."""
    n = n1 + n2
    return (
        math.lgamma(total + 1)
        - math.lgamma(x + 1)
        - math.lgamma(total - x + 1)
        + math.lgamma(n - total + 1)
        - math.lgamma(n1 - x + 1)
        - math.lgamma(n - total - n1 + x + 1)
        - math.lgamma(n + 1)
        + math.lgamma(n1 + 1)
        + math.lgamma(n2 + 1)
    )


def fisher_exact(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided Fisher exact p-value for k1/n1 vs k2/n2 (tables as or less likely)."""
    if n1 <= 0 or n2 <= 0:
        return 1.0
    total = k1 + k2
    low, high = max(0, total - n2), min(total, n1)
    observed = _log_hypergeom(k1, total, n1, n2)
    probs = [_log_hypergeom(x, total, n1, n2) for x in range(low, high + 1)]
    return min(1.0, math.fsum(math.exp(v) for v in probs if v <= observed + 1e-7))


def fisher_greater(k1: int, n1: int, k2: int, n2: int) -> float:
    """One-sided Fisher exact p-value that k1/n1 is above k2/n2: P(X >= k1) given the margins."""
    if n1 <= 0 or n2 <= 0:
        return 1.0
    total = k1 + k2
    high = min(total, n1)
    tail = math.fsum(math.exp(_log_hypergeom(x, total, n1, n2)) for x in range(k1, high + 1))
    return min(1.0, tail)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error control), in input order."""
    return weighted_holm(p_values, [1.0] * len(p_values))


def weighted_holm(p_values: Sequence[float], weights: Sequence[float]) -> list[float]:
    """Adjusted p-values of Holm's weighted step-down (Holm 1979, section 4), in input order.

    Hypothesis i holds the share ``weights[i] / sum(weights)`` of alpha; in the order of
    ``p / weight``, each is rejected when ``p * (weights left) / weight <= alpha``, so a rejected
    hypothesis's share passes to the rest in proportion to theirs. Family-wise error is
    controlled at alpha for any positive weights; equal weights are Holm's procedure."""
    if len(p_values) != len(weights) or any(w <= 0 for w in weights):
        raise ValueError("one positive weight per p-value")
    order = sorted(range(len(p_values)), key=lambda i: (p_values[i] / weights[i], i))
    left = math.fsum(weights)
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for index in order:
        running = max(running, min(1.0, p_values[index] * left / weights[index]))
        adjusted[index] = running
        left -= weights[index]
    return adjusted


BOOT_RESAMPLES = 1000
BOOT_SEED = 0
#: Above this many tasks in one rate the cluster-robust normal interval replaces the bootstrap
#: (which it approaches there), so a 1M-pair report stays fast.
BOOT_MAX_CLUSTERS = 2000
_BOOT_CELLS = 4_000_000  # resamples x clusters held in memory at once


def cluster_bootstrap(
    numerators: Sequence[float],
    denominators: Sequence[float],
    resamples: int = BOOT_RESAMPLES,
    seed: int = BOOT_SEED,
) -> tuple[float | None, float | None]:
    """95% interval of sum(num)/sum(den) that treats each cluster (task) as one unit.

    Pairs of one task share its trajectories, so they are not independent: resampling whole
    tasks keeps that dependence, and the interval widens where Wilson's is too narrow. A
    Poisson(1) weight per task (the Poisson bootstrap), percentile limits, seeded so a report
    is the same every time it is built. Tasks with no pair in the rate carry no weight and are
    left out; above BOOT_MAX_CLUSTERS tasks, the cluster-robust (delta-method) normal interval.
    """
    import numpy as np

    num = np.asarray(numerators, dtype=float)
    den = np.asarray(denominators, dtype=float)
    keep = (den != 0) | (num != 0)
    num, den = num[keep], den[keep]
    clusters = len(den)
    total = float(den.sum())
    if clusters == 0 or total <= 0:
        return None, None
    lo_bound = 0.0 if (num >= 0).all() else -1.0
    if clusters > BOOT_MAX_CLUSTERS:
        ratio = float(num.sum()) / total
        variance = float(((num - ratio * den) ** 2).sum()) / total**2 * clusters / (clusters - 1)
        half = Z95 * math.sqrt(variance)
        return max(lo_bound, ratio - half), min(1.0, ratio + half)
    rng = np.random.default_rng(seed)
    chunk = max(1, _BOOT_CELLS // clusters)
    ratios: list[Any] = []
    for start in range(0, resamples, chunk):
        weights = rng.poisson(1.0, size=(min(chunk, resamples - start), clusters))
        totals = weights @ den
        valid = totals > 0
        ratios.append((weights @ num)[valid] / totals[valid])
    values = np.concatenate(ratios)
    if len(values) == 0:
        return None, None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)

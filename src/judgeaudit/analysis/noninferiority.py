"""The judge gate's statistics: pairs of one task are not independent, so every figure treats
the task as the unit.

A re-judged pair's change ``d`` is +1 (it flipped to misselected), -1 (to correct) or 0. Per
row (a gap bucket, or overall) the change is D = sum(d) / n, and per task t the sum S_t of its
pairs' d is what varies independently. From the S_t:

- *worse*: an exact one-sided task-level sign-flip permutation test of "no change" (each task's
  S_t keeps or flips its sign with probability 1/2, which holds when the two judges are
  exchangeable on that task's pairs); with one pair per task it is McNemar's exact test.
- the interval: D +/- t(G-1) x the cluster-robust (CR1) standard error over the G tasks, the
  same figure as statsmodels' OLS of d on a constant with ``cov_type="cluster"``, ``use_t``.
- *not worse*: the one-sided 95% upper bound, the larger of that interval's one-sided limit and
  a rare-flip floor (the exact Clopper-Pearson bound of the flip-to-misselected share less the
  flip-to-correct share), so a row with few flips is not cleared on a collapsed standard error.
- the pairs needed: Connor's (1987) paired sample size for a rise of the margin at the observed
  discordance, one-sided alpha 0.05 and power 0.80, times the task design effect.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

ALPHA = 0.05  # one-sided, family-wise over the rows (weighted Holm) for "worse"
POWER = 0.80
DEFAULT_MARGIN = 0.02
#: Above this many DP cells (tasks x range of the sum) the sign-flip p is the normal approximation.
EXACT_CELLS = 50_000_000

Verdict = Literal["worse", "not worse", "inconclusive", "too few pairs to tell", "no data"]


def t_quantile(q: float, df: int) -> float:
    """Student's t quantile for q in (0.5, 1) and integer df >= 1 (bisection on the exact CDF,
    Abramowitz & Stegun 26.7.3-4); above 1000 degrees of freedom the Cornish-Fisher series
    z + (z^3 + z) / 4df + (5z^5 + 16z^3 + 3z) / 96df^2 (A&S 26.7.5)."""
    if df > 1000:
        z = NormalDist().inv_cdf(q)
        return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
    target = 2 * q - 1  # P(|T| <= t)
    low, high = 0.0, 1.0
    while _abs_t_cdf(high, df) < target:
        high *= 2
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if _abs_t_cdf(mid, df) < target else (low, mid)
    return (low + high) / 2


def _abs_t_cdf(t: float, df: int) -> float:
    theta = math.atan(t / math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    if df % 2:
        if df == 1:
            return 2 * theta / math.pi
        term, total = c, c
        for k in range(3, df - 1, 2):
            term *= c * c * (k - 1) / k
            total += term
        return 2 / math.pi * (theta + s * total)
    term, total = 1.0, 1.0
    for k in range(2, df - 1, 2):
        term *= c * c * (k - 1) / k
        total += term
    return s * total


@dataclass(frozen=True)
class Clustered:
    """The paired change of one row, with its task-clustered (CR1) spread."""

    change: float
    n: int
    tasks: int
    se: float | None  # None with fewer than two tasks, or every task's sum at the mean
    low: float | None  # two-sided 95%, per row
    high: float | None
    upper: float | None  # one-sided 95% (the t limit only; see ``ni_bound`` for the floor)


def clustered(sums: Sequence[int], counts: Sequence[int]) -> Clustered:
    """D = sum(S)/n with the cluster-robust standard error sqrt(G/(G-1) sum (S_t - D n_t)^2)/n.
    Where every task's sum sits at the mean (no flip, or flips that cancel within each task, or
    each task moved alike) the estimate is 0 and the interval [D, D] would read as a change known
    exactly: no spread, no interval (None); the bound is then ``ni_bound``'s exact floor alone."""
    n = int(sum(counts))
    tasks = sum(1 for c in counts if c)
    if n == 0:
        return Clustered(0.0, 0, 0, None, None, None, None)
    change = sum(sums) / n
    if tasks < 2:
        return Clustered(change, n, tasks, None, None, None, None)
    total = int(sum(sums))
    if all(n * int(s) == total * int(c) for s, c in zip(sums, counts, strict=True)):
        return Clustered(change, n, tasks, None, None, None, None)  # S_t = D n_t exactly
    residual = math.fsum((s - change * c) ** 2 for s, c in zip(sums, counts, strict=True))
    se = math.sqrt(tasks / (tasks - 1) * residual) / n
    half = t_quantile(0.975, tasks - 1) * se
    return Clustered(
        change,
        n,
        tasks,
        se,
        change - half,
        change + half,
        change + t_quantile(1 - ALPHA, tasks - 1) * se,
    )


def design_effect(result: Clustered, discordant: int) -> float:
    """CR1 variance over the variance of the mean of n independent d (>= 1; 1 without flips)."""
    n = result.n
    if result.se is None or n < 2 or discordant == 0:
        return 1.0
    variance = (discordant - n * result.change**2) / (n - 1)
    if variance <= 0:
        return 1.0
    return max(1.0, result.se**2 / (variance / n))


def signflip_p(sums: Sequence[int]) -> float:
    """Exact one-sided p of the task-level sign-flip test: P(sum e_t S_t >= sum S_t) over the
    2^G equally likely sign vectors, by convolution over the integer sums (normal approximation
    past EXACT_CELLS cells)."""
    values = [abs(int(s)) for s in sums if s]
    observed = sum(int(s) for s in sums)
    if not values:
        return 1.0
    span = sum(values)
    if len(values) * (2 * span + 1) > EXACT_CELLS:
        sd = math.sqrt(sum(v * v for v in values))
        return 1 - NormalDist().cdf((observed - 0.5) / sd)
    import numpy as np

    dist = np.zeros(2 * span + 1)
    dist[span] = 1.0
    for v in values:
        shifted = np.zeros_like(dist)
        shifted[v:] += dist[:-v] * 0.5
        shifted[:-v] += dist[v:] * 0.5
        dist = shifted
    return float(min(1.0, dist[span + observed :].sum()))


def cp_upper(k: int, n: int, alpha: float = ALPHA) -> float:
    """One-sided exact (Clopper-Pearson) upper bound of a proportion with k of n."""
    if n <= 0:
        return 1.0
    if k >= n:
        return 1.0
    import numpy as np

    ks = np.arange(k + 1)
    logc = np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in ks])

    def cdf(p: float) -> float:
        return float(np.exp(logc + ks * math.log(p) + (n - ks) * math.log1p(-p)).sum())

    low, high = k / n, 1.0
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if cdf(mid) > alpha else (low, mid)
    return high


def ni_bound(result: Clustered, to_missel: int, to_correct: int) -> float | None:
    """The one-sided 95% upper bound of the rise compared with the margin."""
    if result.n == 0:
        return None
    floor = cp_upper(to_missel, result.n) - to_correct / result.n
    return floor if result.upper is None else max(result.upper, floor)


def min_pairs(margin: float, alpha: float = ALPHA) -> int:
    """The fewest decisive pairs at which even zero flips bound the rise below the margin
    (Clopper-Pearson: 1 - alpha^(1/n) < margin)."""
    return math.floor(math.log(alpha) / math.log1p(-margin)) + 1


def pairs_needed(discordance: float, margin: float, deff: float = 1.0, power: float = POWER) -> int:
    """Connor (1987): n = (z_a sqrt(psi) + z_b sqrt(psi - delta^2))^2 / delta^2 pairs to detect a
    rise delta at discordance psi (psi raised to delta if lower: a rise of delta needs that many
    flips), times the design effect; never fewer than ``min_pairs``."""
    z_a, z_b = NormalDist().inv_cdf(1 - ALPHA), NormalDist().inv_cdf(power)
    psi = max(discordance, margin)
    n = (z_a * math.sqrt(psi) + z_b * math.sqrt(psi - margin**2)) ** 2 / margin**2
    return max(math.ceil(n * deff), min_pairs(margin))


def power_at(
    pairs: int, discordance: float, margin: float, deff: float = 1.0, alpha: float = ALPHA
) -> float:
    """The power ``pairs_needed`` solves for, at ``pairs`` decisive pairs: Connor's
    Phi((delta sqrt(n / deff) - z_a sqrt(psi)) / sqrt(psi - delta^2)). With ``alpha`` the
    overall row's share of the family's alpha it is the chance that a rise of ``margin`` is
    called worse (the gate's "at this size" line). How often an unchanged judge passes is not
    this: the gate's bound uses the sign-flip null spread and t(G-1) (``gate_size``), so at the
    size ``pairs_needed`` plans for it can read below ``power``."""
    if pairs <= 0:
        return 0.0
    z_a = NormalDist().inv_cdf(1 - alpha)
    psi = max(discordance, margin)
    spread = math.sqrt(max(psi - margin**2, 1e-12))
    return NormalDist().cdf((margin * math.sqrt(pairs / deff) - z_a * math.sqrt(psi)) / spread)


def detectable_rise(
    pairs: int, discordance: float, deff: float = 1.0, power: float = POWER
) -> float | None:
    """The smallest rise ``pairs_needed`` says these pairs detect (bisection; None if none <= 1)."""
    if pairs <= 0:
        return None
    low, high = 1e-4, 0.99
    if pairs_needed(discordance, high, deff, power) > pairs:
        return None
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (
            (mid, high) if pairs_needed(discordance, mid, deff, power) > pairs else (low, mid)
        )
    return high


def decide(worse: bool, n: int, bound: float | None, margin: float) -> Verdict:
    """The row's verdict: worse (a rise significant after the family's adjustment), too few pairs,
    not worse, inconclusive."""
    if n == 0:
        return "no data"
    if worse:
        return "worse"
    if n < min_pairs(margin):
        return "too few pairs to tell"
    if bound is not None and bound < margin:
        return "not worse"
    return "inconclusive"

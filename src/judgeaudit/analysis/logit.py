"""A binomial logistic regression fitted by iteratively reweighted least squares, with the
task-clustered (CRV1) sandwich covariance and normal p-values: the style fit's model
(:mod:`judgeaudit.analysis.why`).

Written here on numpy alone, so a report does not import statsmodels and scipy (0.6 s of every
report on a run with trajectories, and about 200 MB of the installed command). The algorithm is
statsmodels' GLM IRLS step for step (start at mu = (y + 1/2) / 2, least-squares solves, stop when
the deviance moves by less than 1e-8, at most 100 iterations), and the covariance its
``cov_type="cluster"`` with the small-sample factor G/(G-1) * (N-1)/(N-K);
``tests/unit/analysis/test_logit.py`` holds the two equal, statsmodels being the reference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MAX_ITERATIONS = 100
#: |log odds ratio| beyond which a style term is taken as separating the verdicts (odds ratio
#: > 22000 per SD of the feature): the style model drops it. (The gap model tests separation
#: exactly: one covariate, ``gap_model.separated``.)
SEPARATES = 10.0
TOLERANCE = 1e-8
#: mu is kept this far inside (0, 1) where the deviance and the weights read it (statsmodels' rule).
_EPS = float(np.finfo(float).eps)


@dataclass(frozen=True)
class LogitFit:
    """Coefficients, their clustered covariance and two-sided normal p-values."""

    params: np.ndarray
    cov: np.ndarray
    pvalues: np.ndarray
    converged: bool


def _mean(eta: np.ndarray) -> np.ndarray:
    mu: np.ndarray = 1.0 / (1.0 + np.exp(-eta))
    return mu


def _deviance(y: np.ndarray, mu: np.ndarray) -> float:
    mu = np.clip(mu, _EPS, 1 - _EPS)
    return float(-2.0 * np.sum(y * np.log(mu) + (1 - y) * np.log(1 - mu)))


def fit_logit(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> LogitFit:
    """Fit ``y`` (0/1) on ``x`` (intercept included by the caller), clustered by ``groups``.

    Raises ValueError for a problem the data cannot be fitted with (NaN deviance, fewer than
    two groups) and numpy's LinAlgError for a singular Hessian, as statsmodels does."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    mu = (y + 0.5) / 2.0
    eta = np.log(mu / (1 - mu))
    deviance = _deviance(y, mu)
    if math.isnan(deviance):
        raise ValueError("the first guess on the deviance is NaN")
    converged = False
    for _ in range(MAX_ITERATIONS):
        clipped = np.clip(mu, _EPS, 1 - _EPS)
        weights = clipped * (1 - clipped)
        root = np.sqrt(weights)
        wx, wz = x * root[:, None], (eta + (y - mu) / weights) * root
        params = np.linalg.lstsq(wx, wz, rcond=-1)[0]
        eta = x @ params
        mu = _mean(eta)
        previous, deviance = deviance, _deviance(y, mu)
        if abs(deviance - previous) <= TOLERANCE:
            converged = True
            break
    params = np.linalg.pinv(wx, rcond=1e-15) @ wz  # statsmodels' last solve: the same system
    mu = _mean(x @ params)
    weights = mu * (1 - mu)
    bread = np.linalg.inv((x.T * weights) @ x)
    cov = clustered_cov(bread, x * (y - mu)[:, None], np.asarray(groups), float(x.shape[0]))
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(params / se)
    pvalues = np.array([math.erfc(v / math.sqrt(2)) if np.isfinite(v) else np.nan for v in z])
    return LogitFit(params, cov, pvalues, converged)


def clustered_cov(
    bread: np.ndarray, scores: np.ndarray, groups: np.ndarray, nobs: float
) -> np.ndarray:
    """The task-clustered (CRV1) sandwich ``bread @ meat @ bread`` with statsmodels' factor
    G/(G-1) * (N-1)/(N-K): ``bread`` the inverse information, ``scores`` each row's score,
    ``groups`` its task (ints), ``nobs`` the observations (a grouped fit's trials). The one
    sandwich of the report's logistic models (this module's and the gap model's)."""
    clusters = np.unique(groups)
    n_groups, k = len(clusters), scores.shape[1]
    if n_groups < 2:
        raise ValueError("the clustered covariance needs at least two tasks")
    sums = np.zeros((n_groups, k))
    np.add.at(sums, np.searchsorted(clusters, groups), scores)
    meat = sums.T @ sums
    correction = n_groups / (n_groups - 1) * (nobs - 1) / (nobs - k)
    cov: np.ndarray = bread @ meat @ bread * correction
    return cov

"""Misselection against the gap as one continuous model, under the bucket table.

Four buckets of a few agent pairs each speak for little; a logistic regression of "the judge
picked the failed side" on the gap (over decisive pairs) uses every pair and gives one number:
the odds ratio per 0.1 of gap (below 1: a wider gap, fewer misselections). Its standard error
is cluster-robust by task (:func:`judgeaudit.analysis.logit.clustered_cov`, with statsmodels'
small-sample factor G/(G-1) * (N-1)/(N-K)), so pairs sharing a task's conversations are not counted as independent;
the interval is Wald's on the log odds. Fitted by Newton-Raphson on the (task, gap) groups,
so a run of millions of pairs never reaches Python row by row.
"""

from __future__ import annotations

import math
import sqlite3
from typing import Any

import numpy as np

from judgeaudit.analysis.engines.dialect import Pairs, as_pairs
from judgeaudit.analysis.logit import clustered_cov
from judgeaudit.analysis.stats import Z95
from judgeaudit.audit.store.schema import is_decisive

METHOD = (
    "logistic regression of misselection on the gap (per 0.1) over decisive pairs, "
    "task-clustered sandwich standard error, Wald 95% interval"
)
STEP = 0.1
MAX_ITER = 50
SEPARATED = (
    "no finite estimate: the gap separates misselected from correctly judged pairs"
    " (quasi-separation; too few pairs)"
)
NO_VARIANCE = "no interval: the task-clustered variance is zero (too few tasks)"
#: An interval end past this is no float (``exp`` overflows): an estimate too unstable to show.
MAX_LOG_ODDS = 700.0
UNSTABLE = "no interval: the estimate is too unstable to bound (too few pairs)"


def separated(x: np.ndarray, k: np.ndarray, n: np.ndarray) -> bool:
    """Whether no finite slope exists: with one covariate and an intercept, the maximum
    likelihood estimate exists exactly when the gaps of misselected and of correctly judged
    pairs overlap; where every misselection lies at or past every correct pair's gap (or at or
    before), Newton only runs off to infinity (complete or quasi-complete separation)."""
    wrong, right = x[k > 0], x[n - k > 0]
    return bool(wrong.max() <= right.min() or right.max() <= wrong.min())


def unusable(beta: float, se: float) -> str | None:
    """Why a converged fit has no interval to report, or None."""
    if not math.isfinite(se) or abs(beta) + Z95 * se > MAX_LOG_ODDS:
        return UNSTABLE
    return NO_VARIANCE if se < 1e-9 else None


def fit(x: np.ndarray, k: np.ndarray, n: np.ndarray, task: np.ndarray) -> dict[str, Any] | None:
    """Binomial logit of k successes in n at covariate x, clustered by ``task`` (ints)."""
    X = np.column_stack([np.ones_like(x), x])
    beta = np.zeros(2)
    for _ in range(MAX_ITER):
        p = 1 / (1 + np.exp(-(X @ beta)))
        score = X.T @ (k - n * p)
        info = (X * (n * p * (1 - p))[:, None]).T @ X
        try:
            step = np.linalg.solve(info, score)
        except np.linalg.LinAlgError:
            return None
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    else:
        return None
    p = 1 / (1 + np.exp(-(X @ beta)))
    info = (X * (n * p * (1 - p))[:, None]).T @ X
    nobs = float(n.sum())
    bread = np.linalg.inv(info)
    cov = clustered_cov(bread, X * (k - n * p)[:, None], task, nobs)
    var = float(cov[1, 1])
    # zero when the tasks' score contributions cancel (two tasks), but the rounding of the
    # machine's BLAS leaves it a hair either side: below 1e-10 of the model-based variance it
    # is taken as the zero it is (a positive hair gave a [1.00, 1.00] interval on one CPU)
    if var <= 1e-10 * float(bread[1, 1]):
        var = 0.0
    return {
        "beta": float(beta[1]),
        "se": math.sqrt(var),
        "tasks": len(np.unique(task)),
        "n": int(nobs),
    }


def gap_model(db: Pairs | sqlite3.Connection, run_id: str, source: str) -> dict[str, Any]:
    """Odds ratio of misselection per 0.1 of gap, with a task-clustered interval."""
    pairs = as_pairs(db)
    gap, no_flatten = pairs.dialect.gap(source), pairs.dialect.no_flatten
    rows = pairs.execute(
        f"SELECT task_id, g, COUNT(*), SUM(m) FROM (SELECT task_id, {gap} AS g,"
        " COALESCE(misselected, 0) AS m FROM audit_pairs WHERE run_id = ?"
        f" AND {is_decisive()}{no_flatten}) AS d WHERE g IS NOT NULL GROUP BY task_id, g"
        " ORDER BY task_id, g",
        (run_id,),
    ).fetchall()
    # The fit's last digits depend on the order of its rows: Python's order, whatever the
    # engine's collation (the engine's ORDER BY makes this sort one linear pass).
    rows = sorted((tuple(r) for r in rows), key=lambda r: (r[0], r[1]))
    empty = {"odds_ratio_per_0_1": None, "ci": None, "p_value": None, "method": METHOD}
    if not rows:
        return {**empty, "n": 0, "tasks": 0, "why_not": "no decisive pair with a gap"}
    tasks, gaps, sizes, missel = zip(*rows, strict=True)
    names = {t: i for i, t in enumerate(sorted(set(tasks)))}
    task = np.array([names[t] for t in tasks])
    x = np.array(gaps, dtype=float) / STEP
    n = np.array(sizes, dtype=float)
    k = np.array([v or 0 for v in missel], dtype=float)
    total, events = int(n.sum()), int(k.sum())
    why = None
    if len(names) < 2:
        why = "fewer than 2 tasks"
    elif events in (0, total):
        why = "no misselection" if events == 0 else "every decisive pair misselected"
    elif np.ptp(x) == 0:
        why = "every pair has the same gap"
    elif separated(x, k, n):
        why = SEPARATED
    fitted = None if why else fit(x, k, n, task)
    if fitted is None:
        return {**empty, "n": total, "tasks": len(names), "why_not": why or "did not converge"}
    beta, se = fitted["beta"], fitted["se"]
    why = unusable(beta, se)
    if why:
        return {**empty, "n": total, "tasks": len(names), "why_not": why}
    z = beta / se
    return {
        "odds_ratio_per_0_1": math.exp(beta),
        "ci": [math.exp(beta - Z95 * se), math.exp(beta + Z95 * se)],
        "p_value": math.erfc(abs(z) / math.sqrt(2)),
        "n": total,
        "tasks": len(names),
        "method": METHOD,
        "why_not": None,
    }


def model_line(model: dict[str, Any] | None) -> str:
    """The model as one line under the bucket table."""
    if not model:
        return ""
    if model["odds_ratio_per_0_1"] is None:
        return f"  misselection vs gap (logistic, per 0.1): not fitted ({model['why_not']})"
    low, high = model["ci"]
    return (
        f"  misselection vs gap: odds ratio {model['odds_ratio_per_0_1']:.3f} per 0.1 of gap, "
        f"95% CI [{low:.3f}, {high:.3f}], p={model['p_value']:.2g} "
        f"(logistic, task-clustered SE; {model['n']} decisive pairs, {model['tasks']} tasks)"
    )

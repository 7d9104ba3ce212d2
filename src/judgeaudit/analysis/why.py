"""What moves this judge: a logistic regression of "the judge preferred the trajectory shown
first" on the success difference, the style-feature differences and a position term, over every
judged order, with odds ratios and 95% intervals clustered by task.

- **Terms**: continuous features (length, turns, tool calls, courtesy) per standard deviation of
  the feature over the run's trajectories, so their odds ratios compare with the 0/1 ones; the
  position term is the intercept. Sorted by effect (|log odds ratio|), unstable terms last.
- **Unstable terms**: a term whose 95% interval's ends are more than ``UNSTABLE_SPAN`` apart
  (quasi-separation: few orders differ in it, nearly always the same way) keeps its direction
  but not its size; it is flagged, and no ranking puts it above a stable term.
- **Style-controlled misselection rate** (AlpacaEval's length control, generalised): per judged
  order of a decisive pair, the probability the fitted model gives the failed side with every
  style difference set to zero, averaged; its interval is the delta method with task-clustered
  influence functions (the fit's sandwich and the average's own spread together). The raw rate
  beside it is the same quantity observed: the share of those orders that picked the failed side.
- **Explained pairs**: a misselected pair is explained by style when, with its style differences
  zeroed, the model gives the failed side less than even odds averaged over its orders; the term
  that pushed most toward the failed side names it (``review export --explained-by``).

The model is fitted by :func:`judgeaudit.analysis.logit.fit_logit` (numpy; statsmodels' GLM
step for step, held equal to it in the tests).
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from typing import Any

import numpy as np

from judgeaudit.analysis.clustered import Sums, interval
from judgeaudit.analysis.features import CONTINUOUS, FEATURES, KIND, STYLE
from judgeaudit.analysis.logit import SEPARATES, fit_logit
from judgeaudit.analysis.stats import Z95
from judgeaudit.analysis.why_data import Orders, RunData, differences, load_run

#: The terms whose odds ratio the leaderboard and the headline name (all but success, position).
ATTRIBUTED = FEATURES
MIN_ORDERS = 40
#: An odds ratio whose 95% interval's ends are more than this factor apart is *unstable*: the
#: interval is then wider than the estimate divided and multiplied by 10 (log half-width over
#: ln 10, a log-scale standard error over 1.17), so the data cannot tell 3 from 300.
UNSTABLE_SPAN = 100.0
MIN_TASKS = 5
METHOD = (
    "logistic regression (binomial GLM by IRLS) of 'first shown preferred' over judged "
    "orders; 95% intervals from the task-clustered sandwich covariance"
)
CONTROLLED_METHOD = (
    "mean predicted probability of preferring the failed side with style differences zeroed; "
    "95% interval: delta method on the logit scale with task-clustered influence functions"
)


def _skip(note: str, data: RunData | None = None) -> dict[str, Any]:
    counts = {"orders": len(data.orders), "pairs": data.pairs} if data else {}
    return {"status": "skipped", "note": note, "terms": [], "controlled_rate": None,
            "raw_rate": None, **counts}  # fmt: skip


def _design(
    data: RunData,
) -> tuple[np.ndarray, list[str], dict[str, float], list[dict[str, str]]]:
    """The regressors (intercept first), their names, each continuous feature's scale and the
    terms dropped (no variance, or a copy of others)."""
    raw = differences(data)
    scales: dict[str, float] = {}
    for name in CONTINUOUS:
        values = data.values(name)[data.sides]  # over the run's trajectories, each counted
        sd = float(values.std(ddof=1)) if len(values) > 1 else 0.0
        scales[name] = sd if sd > 0 else 1.0
    columns = [np.ones(len(data.orders))]
    names = ["position"]
    dropped: list[dict[str, str]] = []
    for name in ("success", *FEATURES):
        column = raw[name] / scales.get(name, 1.0)
        if np.ptp(column) == 0:
            dropped.append({"feature": name, "reason": "no variance in this run"})
            continue
        trial = np.column_stack([*columns, column])
        if np.linalg.matrix_rank(trial) < trial.shape[1]:
            dropped.append({"feature": name, "reason": "a combination of the terms before it"})
            continue
        columns.append(column)
        names.append(name)
    return np.column_stack(columns), names, scales, dropped


def _sigmoid(z: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-z))
    return out


def fit_style(data: RunData) -> dict[str, Any]:
    """The model, the controlled rate and the explained pairs, or one line why there are none."""
    if data.stored == 0:
        return _skip("style attribution: no stored trajectories in this run (nothing to read)")
    rows = data.orders
    if len(rows) < MIN_ORDERS or rows.tasks < MIN_TASKS:
        return _skip(
            f"style attribution: too few judged orders ({len(rows)} over {rows.tasks} tasks; "
            f"needs {MIN_ORDERS} over {MIN_TASKS})",
            data,
        )
    y = rows.y
    if y.min() == y.max():
        return _skip("style attribution: the judge preferred the same position every time", data)
    x, names, scales, dropped = _design(data)
    if not set(names) & set(ATTRIBUTED):
        return _skip(
            "style attribution: no feature differs between the sides of any judged order (the "
            "trajectories hold no conversation to read, as recorded verdicts often do)",
            data,
        )
    groups = rows.group  # the tasks numbered in sorted order
    fitted = _fit(x, y, groups, names, dropped)
    if isinstance(fitted, str):
        return _skip(fitted, data)
    beta, cov, pvalues, x, names = fitted
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    terms: list[dict[str, Any]] = [
        {
            "feature": name,
            "odds_ratio": math.exp(b),
            "ci_low": math.exp(b - Z95 * s),
            "ci_high": math.exp(b + Z95 * s),
            "p_value": float(p),
            "coef": float(b),
            "kind": KIND[name],
            "unit": _unit(name, scales),
        }
        for name, b, s, p in zip(names, beta, se, pvalues, strict=True)
    ]
    for t in terms:
        t["unstable_reason"] = instability(t)
        t["unstable"] = t["unstable_reason"] is not None
    terms.sort(key=lambda t: (t["unstable"], -abs(t["coef"])))
    rates = _rates(rows, x, y, names, beta, groups, rows.tasks)
    return {
        "status": "ok",
        "method": METHOD,
        "orders": len(rows),
        "pairs": data.pairs,
        "tasks": rows.tasks,
        "terms": terms,
        "dropped": dropped,
        "zeroed": [n for n in names if n in STYLE],
        **rates,
    }


def _fit(
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    names: list[str],
    dropped: list[dict[str, str]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]] | str:
    """The GLM with task-clustered covariance. A term that separates the verdicts (whenever the
    two sides differ in it, the same side wins) has no finite odds ratio: it is left out, named
    in ``dropped``, and the rest refitted."""
    while True:
        try:
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                result = fit_logit(x, y, groups)
        except (np.linalg.LinAlgError, ValueError) as exc:
            return f"style attribution: the model cannot be fitted ({exc})"
        beta = result.params
        if not np.all(np.isfinite(beta)):
            return "style attribution: the model cannot be fitted (no finite estimate)"
        worst = int(np.argmax(np.abs(beta[1:]))) + 1 if len(beta) > 1 else 0
        if worst == 0 or abs(beta[worst]) <= SEPARATES:
            return beta, result.cov, result.pvalues, x, names
        side = "more" if beta[worst] > 0 else "less"
        dropped.append({"feature": names[worst], "reason": (
            f"separates the verdicts: when the sides differ in it, the one with {side} of it "
            "wins (odds ratio unbounded)")})  # fmt: skip
        x = np.delete(x, worst, axis=1)
        names = [n for i, n in enumerate(names) if i != worst]


def _unit(name: str, scales: dict[str, float]) -> str:
    if name == "position":
        return "shown first, all else equal"
    if name in scales:
        what = {"length": "characters", "courtesy": "markers"}.get(name, name.replace("_", " "))
        return f"per SD ({scales[name]:.3g} {what}), first minus second"
    return "yes minus no, first minus second"


def _rates(
    rows: Orders,
    x: np.ndarray,
    y: np.ndarray,
    names: list[str],
    beta: np.ndarray,
    groups: np.ndarray,
    n_tasks: int,
) -> dict[str, Any]:
    """Raw and style-controlled per-order misselection rates, and the explained pairs."""
    style_cols = [i for i, n in enumerate(names) if n in STYLE]
    x0 = x.copy()
    x0[:, style_cols] = 0.0
    p = _sigmoid(x @ beta)
    p0 = _sigmoid(x0 @ beta)
    decisive = rows.first_success != rows.second_success
    first_failed = rows.first_success < rows.second_success
    # P(the failed side preferred): p when it was shown first, 1 - p otherwise.
    wrong = np.where(first_failed, y, 1 - y)
    q0 = np.where(first_failed, p0, 1 - p0)
    if not decisive.any():
        return {"raw_rate": None, "controlled_rate": None, "misselected": 0, "explained": 0,
                "explained_by": {}, "explained_pairs": {}}  # fmt: skip
    # (wrong, orders) per task with a decisive order, tasks in the order first met; counts, so
    # summed exactly in any order (a Python loop over 2M orders took a second)
    met, wrong_met = groups[decisive], wrong[decisive]
    _, first = np.unique(met, return_index=True)
    seen = met[np.sort(first)]
    k = np.bincount(met, weights=wrong_met, minlength=n_tasks)[seen]
    n = np.bincount(met, minlength=n_tasks)[seen].astype(float)
    per_task = list(zip(k.tolist(), n.tolist(), strict=True))
    raw = {**interval(Sums.of(per_task)), "orders": int(decisive.sum()),
           "wrong": int(wrong[decisive].sum()),
           "method": "share of judged orders of decisive pairs that preferred the failed side; "
           "Wilson with a task design effect"}  # fmt: skip
    controlled = _controlled(x, x0, y, p, q0, decisive, first_failed, groups, n_tasks)
    # The fit's own rate (style kept): the controlled rate's counterpart inside the model, with
    # the same interval (x0 = x: nothing zeroed).
    kept = _controlled(x, x, y, p, np.where(first_failed, p, 1 - p), decisive, first_failed,
                       groups, n_tasks)  # fmt: skip
    controlled["model_rate"] = kept["rate"]
    controlled["model_rate_ci"] = [kept["ci_low"], kept["ci_high"]]
    explained = _explained(rows, x, x0, beta, names, style_cols)
    misselected = len(np.unique(rows.pair[rows.misselected]))
    return {
        "raw_rate": raw,
        "controlled_rate": controlled,
        "misselected": misselected,
        "explained": len(explained),
        "explained_by": dict(Counter(explained.values()).most_common()),
        "explained_pairs": explained,
    }


def _controlled(
    x: np.ndarray,
    x0: np.ndarray,
    y: np.ndarray,
    p: np.ndarray,
    q0: np.ndarray,
    decisive: np.ndarray,
    first_failed: np.ndarray,
    groups: np.ndarray,
    n_tasks: int,
) -> dict[str, Any]:
    """Mean of q0 over decisive orders, with a delta-method interval from per-task influence."""
    n = int(decisive.sum())
    rate = float(q0[decisive].mean())
    p0 = np.where(first_failed, q0, 1 - q0)
    sign = np.where(first_failed, 1.0, -1.0)
    # d rate / d beta, and the fit's influence H^-1 s_t per task (s_t: the task's score).
    grad = ((sign * p0 * (1 - p0))[decisive, None] * x0[decisive]).sum(axis=0) / n
    hessian = (x * (p * (1 - p))[:, None]).T @ x
    h_inv = np.linalg.pinv(hessian)
    score = x * (y - p)[:, None]
    # per-task sums by bincount: a mask per task was tasks x orders (minutes at 1M pairs)
    per_task = np.column_stack(
        [np.bincount(groups, weights=score[:, j], minlength=n_tasks) for j in range(x.shape[1])]
    )
    psi = per_task @ (grad @ h_inv)
    psi += np.bincount(groups[decisive], weights=q0[decisive] - rate, minlength=n_tasks) / n
    var = float((psi**2).sum()) * n_tasks / max(1, n_tasks - 1)
    se = math.sqrt(var)
    low, high = _logit_interval(rate, se)
    return {"rate": rate, "ci_low": low, "ci_high": high, "orders": n,
            "method": CONTROLLED_METHOD}  # fmt: skip


def _logit_interval(rate: float, se: float) -> tuple[float, float]:
    if rate <= 0 or rate >= 1:
        return rate, rate
    logit = math.log(rate / (1 - rate))
    half = Z95 * se / (rate * (1 - rate))
    return 1 / (1 + math.exp(-(logit - half))), 1 / (1 + math.exp(-(logit + half)))


def _explained(
    rows: Orders,
    x: np.ndarray,
    x0: np.ndarray,
    beta: np.ndarray,
    names: list[str],
    style_cols: list[int],
) -> dict[str, str]:
    """Misselected pair -> the style term that pushed most toward the failed side, for the pairs
    whose verdict the fitted model reproduces (the failed side at better than even odds, averaged
    over the pair's orders) and reverses once their style differences are zeroed."""
    by_pair: dict[int, list[int]] = {}
    chosen = rows.misselected & (rows.first_success != rows.second_success)
    for i, pair in zip(np.flatnonzero(chosen).tolist(), rows.pair[chosen].tolist(), strict=True):
        by_pair.setdefault(pair, []).append(i)
    out: dict[str, str] = {}
    for pair, index in by_pair.items():
        toward_failed = np.where(rows.first_success[index] == 0, 1.0, -1.0)
        q = _sigmoid(toward_failed * (x[index] @ beta))
        q0 = _sigmoid(toward_failed * (x0[index] @ beta))
        if not style_cols or float(q.mean()) < 0.5 or float(q0.mean()) >= 0.5:
            continue  # the model does not reproduce the verdict, or style does not carry it
        push = (toward_failed[:, None] * x[index][:, style_cols] * beta[style_cols]).mean(axis=0)
        out[rows.pair_ids[pair]] = names[style_cols[int(np.argmax(push))]]
    return out


def style_section(db: sqlite3.Connection, run_id: str) -> dict[str, Any]:
    """The report's ``style`` section for one run (the per-pair explanations left out: they are
    ``review export --explained-by``'s)."""
    section = fit_style(load_run(db, run_id))
    section.pop("explained_pairs", None)
    return section


def largest_style_term(out: Any, run_id: str | None) -> tuple[str, float] | None:
    """For the judge leaderboard: the feature term (style, process or claim) with the largest
    odds ratio, stable terms first (``top_style_terms``), and that odds ratio; None when the run
    has no fitted model."""
    from judgeaudit.analysis.frame import open_db, resolve_run

    db = open_db(out)
    try:
        section = style_section(db, resolve_run(db, run_id))
    finally:
        db.close()
    top = top_style_term(section)
    return None if top is None else (str(top["feature"]), float(top["odds_ratio"]))


def top_style_term(section: dict[str, Any]) -> dict[str, Any] | None:
    """The feature term with the largest odds ratio in a fitted ``style`` section, stable terms
    first (the report's own section, so a reader that has the report does not fit the model
    twice); None without a model."""
    top = top_style_terms(section, 1)
    return top[0] if top else None


def top_style_terms(section: dict[str, Any], k: int) -> list[dict[str, Any]]:
    """The ``k`` feature terms (style, process, claim) with the largest odds ratios, largest
    first, stable ones before any unstable one (whose large estimate is the separation's, not a
    measured size): the leaderboard's column and the preference card's list."""
    style = [t for t in section.get("terms", []) if t["feature"] in ATTRIBUTED]
    return sorted(style, key=lambda t: (is_unstable(t), -float(t["odds_ratio"])))[:k]


def span(term: dict[str, Any]) -> float:
    """How many times the interval's high end is its low end (inf when the low end is 0, or an
    end is missing or not a number: a term read from an older record with no interval)."""
    try:
        low, high = float(term["ci_low"]), float(term["ci_high"])
    except (KeyError, TypeError, ValueError):
        return math.inf
    if math.isnan(low) or math.isnan(high) or low <= 0 or not math.isfinite(high):
        return math.inf
    return high / low


def instability(term: dict[str, Any]) -> str | None:
    """Why the term's odds ratio is unstable (interval over ``UNSTABLE_SPAN``-fold), else None.
    Read from the interval, so a style section kept before the flag existed reads the same."""
    ratio = span(term)
    if ratio <= UNSTABLE_SPAN:
        return None
    if math.isinf(ratio) and not _has_interval(term):
        return "no interval to size it by"
    clear = term["ci_low"] > 1 or term["ci_high"] < 1
    what = "the direction is clear, the size is not" if clear else "neither size nor direction is"
    return (
        f"95% interval spans a factor of {ratio:.3g}, over {UNSTABLE_SPAN:g} (few judged orders "
        f"differ in it, or nearly all of them the same way): {what}"
    )


def _has_interval(term: dict[str, Any]) -> bool:
    ends = (term.get("ci_low"), term.get("ci_high"))
    return all(isinstance(e, int | float) and not math.isnan(e) for e in ends)


def is_unstable(term: dict[str, Any]) -> bool:
    """Whether no ranking may put this term above a stable one (see ``instability``)."""
    return instability(term) is not None

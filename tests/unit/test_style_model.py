"""The style model on fixed data against independent computations: sklearn's unpenalised logistic
regression for the odds ratios, a hand-coded task-clustered sandwich for their intervals, and
the controlled rate's behaviour when style is known to push toward the failed side."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from judgeaudit.analysis.features import CONTINUOUS, FEATURES, Features
from judgeaudit.analysis.why import fit_style
from judgeaudit.analysis.why_data import Orders, RunData

Z = 1.959963984540054


class OrderRow(NamedTuple):
    """One judged order, as the definition names it."""

    pair_id: str
    task_id: str
    order: str  # AB | BA
    y: int  # 1: the judge preferred the trajectory shown first
    first_success: int
    second_success: int
    first: Features
    second: Features
    misselected: bool


@dataclass(frozen=True)
class Synthetic:
    rows: list[OrderRow]
    sides: dict[tuple[str, str, int], Features]
    pairs: int

    def run(self) -> RunData:
        """The orders as the model reads them: columns, feature vectors numbered."""
        ids: dict[Features, int] = {}
        rows = self.rows
        first = np.array([ids.setdefault(r.first, len(ids)) for r in rows])
        second = np.array([ids.setdefault(r.second, len(ids)) for r in rows])
        sides = np.array([ids.setdefault(f, len(ids)) for f in self.sides.values()])
        tasks = sorted({r.task_id for r in rows})
        pairs: dict[str, int] = {}
        for r in rows:
            pairs.setdefault(r.pair_id, len(pairs))
        orders = Orders(
            first=first,
            second=second,
            y=np.array([r.y for r in rows], dtype=float),
            first_success=np.array([r.first_success for r in rows]),
            second_success=np.array([r.second_success for r in rows]),
            group=np.array([tasks.index(r.task_id) for r in rows]),
            tasks=len(tasks),
            pair=np.array([pairs[r.pair_id] for r in rows]),
            misselected=np.array([r.misselected for r in rows]),
            pair_ids={n: p for p, n in pairs.items()},
        )
        return RunData(orders, list(ids), sides, self.pairs)


def _side(rng: random.Random, success: int, verbose: float) -> Features:
    claimed = int(rng.random() < 0.7)
    return Features(
        length=int(rng.gauss(300 + 250 * verbose, 80)),
        turns=rng.randint(1, 4),
        tool_calls=rng.randint(0, 3),
        claimed_done=claimed,
        claimed_but_failed=claimed * (1 - success),
        courtesy=rng.randint(0, 3),
        asks_confirmation=int(rng.random() < 0.4),
        cites_ids=int(rng.random() < 0.6),
    )


def synthetic(
    n_tasks: int = 60, length_weight: float = 1.2, seed: int = 5, verbose_succeeds: bool = False
) -> Synthetic:
    """Pairs whose failed side is the verbose one (or, ``verbose_succeeds``, the successful
    one: style confounded with capability, as in the demo), judged by a model that rewards
    length."""
    rng = random.Random(seed)
    sides: dict[tuple[str, str, int], Features] = {}
    rows: list[OrderRow] = []
    for t in range(n_tasks):
        task = f"t{t}"
        for k in range(4):
            sa, sb = rng.randint(0, 1), rng.randint(0, 1)
            a = _side(rng, sa, float(sa) if verbose_succeeds else 1.0 - sa)
            b = _side(rng, sb, float(sb) if verbose_succeeds else 1.0 - sb)
            sides[(task, f"a{k}", 0)], sides[(task, f"b{k}", 0)] = a, b
            prefs = {}
            for order, (fs, ss, ff, sf) in (("AB", (sa, sb, a, b)), ("BA", (sb, sa, b, a))):
                z = 0.3 + 1.5 * (fs - ss) + length_weight * (ff.length - sf.length) / 200
                z += 0.4 * (ff.courtesy - sf.courtesy)
                prefs[order] = int(rng.random() < 1 / (1 + math.exp(-z)))
            first_a, first_b = prefs["AB"], prefs["BA"]
            pref = "A" if first_a and not first_b else "B" if first_b and not first_a else "tie"
            missel = sa != sb and bool((sa and pref == "B") or (sb and pref == "A"))
            for order, y, fs, ss, ff, sf in (
                ("AB", first_a, sa, sb, a, b),
                ("BA", first_b, sb, sa, b, a),
            ):
                rows.append(OrderRow(f"{task}/{k}", task, order, y, fs, ss, ff, sf, missel))
    return Synthetic(rows=rows, sides=sides, pairs=n_tasks * 4)


def design(data: Synthetic) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Built here from the documented definition: first minus second, continuous features per
    SD of the feature over the run's trajectories, an intercept for position."""
    sd = {
        n: float(np.std([getattr(f, n) for f in data.sides.values()], ddof=1)) for n in CONTINUOUS
    }
    names = ["position", "success", *FEATURES]
    x = np.array(
        [
            [1.0, r.first_success - r.second_success]
            + [(getattr(r.first, n) - getattr(r.second, n)) / sd.get(n, 1.0) for n in FEATURES]
            for r in data.rows
        ]
    )
    y = np.array([r.y for r in data.rows], dtype=float)
    groups = np.array([int(r.task_id[1:]) for r in data.rows])
    return x, y, groups, names


def test_odds_ratios_and_clustered_intervals_match_an_independent_fit() -> None:
    data = synthetic()
    style = fit_style(data.run())
    assert style["status"] == "ok"
    x, y, groups, names = design(data)
    ref = LogisticRegression(C=np.inf, fit_intercept=False, tol=1e-10, max_iter=10_000)
    beta = ref.fit(x, y).coef_[0]
    # the task-clustered sandwich by hand, with the small-sample factors statsmodels documents
    p = 1 / (1 + np.exp(-(x @ beta)))
    bread = np.linalg.inv((x * (p * (1 - p))[:, None]).T @ x)
    meat = np.zeros((len(names), len(names)))
    for g in np.unique(groups):
        s = (x[groups == g] * (y - p)[groups == g][:, None]).sum(axis=0)
        meat += np.outer(s, s)
    n, k, clusters = len(y), len(names), len(np.unique(groups))
    cov = bread @ meat @ bread * clusters / (clusters - 1) * (n - 1) / (n - k)
    se = np.sqrt(np.diag(cov))
    got = {t["feature"]: t for t in style["terms"]}
    assert set(got) == set(names)
    for i, name in enumerate(names):
        assert got[name]["odds_ratio"] == pytest.approx(math.exp(beta[i]), rel=1e-4)
        assert got[name]["ci_low"] == pytest.approx(math.exp(beta[i] - Z * se[i]), rel=1e-3)
        assert got[name]["ci_high"] == pytest.approx(math.exp(beta[i] + Z * se[i]), rel=1e-3)
    effects = [abs(math.log(t["odds_ratio"])) for t in style["terms"]]
    assert effects == sorted(effects, reverse=True)  # sorted by effect


def test_when_style_pushes_toward_the_failed_side_controlling_for_it_lowers_the_rate() -> None:
    style = fit_style(synthetic(length_weight=1.2).run())
    raw, controlled = style["raw_rate"], style["controlled_rate"]
    assert controlled["rate"] < raw["rate"]
    assert controlled["ci_low"] < controlled["rate"] < controlled["ci_high"]
    assert style["explained"] > 0 and next(iter(style["explained_by"])) == "length"
    none = fit_style(synthetic(length_weight=0.0).run())
    gap = abs(none["controlled_rate"]["rate"] - none["raw_rate"]["rate"])
    assert gap < raw["rate"] - controlled["rate"]


def test_when_the_successful_side_is_the_verbose_one_controlling_for_style_raises_the_rate() -> (
    None
):
    """The estimand, pinned against an independent computation: with style differences zeroed,
    a judge that rewards length loses the cue that led it to the successful side, so the
    controlled rate is *above* the raw one (the demo's style-weighted re-judge, docs/why.md).
    "Controlled <= raw" holds only when style points toward the failed side."""
    data = synthetic(length_weight=1.2, verbose_succeeds=True)
    style = fit_style(data.run())
    raw, controlled = style["raw_rate"], style["controlled_rate"]
    x, y, _, names = design(data)
    beta = LogisticRegression(C=np.inf, fit_intercept=False, tol=1e-10, max_iter=10_000).fit(x, y)
    x0 = x.copy()
    x0[:, [names.index(n) for n in ("length", "turns", "courtesy")]] = 0.0
    p0 = 1 / (1 + np.exp(-(x0 @ beta.coef_[0])))
    decisive = [r.first_success != r.second_success for r in data.rows]
    first_failed = np.array([r.first_success < r.second_success for r in data.rows])
    wanted = float(np.where(first_failed, p0, 1 - p0)[decisive].mean())
    observed = float(np.where(first_failed, y, 1 - y)[decisive].mean())
    assert controlled["rate"] == pytest.approx(wanted, rel=1e-4)
    assert raw["rate"] == pytest.approx(observed)
    assert controlled["rate"] > raw["rate"] + 0.02
    # same data, a judge blind to length: the two agree, so the rise above is the confounding
    blind = fit_style(synthetic(length_weight=0.0, verbose_succeeds=True).run())
    gap = abs(blind["controlled_rate"]["rate"] - blind["raw_rate"]["rate"])
    assert gap < (controlled["rate"] - raw["rate"]) / 3


def test_too_few_orders_is_one_line_not_an_error() -> None:
    data = synthetic(n_tasks=4)
    style = fit_style(data.run())
    assert style["status"] == "skipped" and style["terms"] == []
    assert "too few judged orders" in style["note"] and "\n" not in style["note"]


def test_a_feature_without_variance_is_named_and_left_out() -> None:
    data = synthetic()
    flat = {key: replace(f, courtesy=0) for key, f in data.sides.items()}
    rows = [
        OrderRow(
            r.pair_id,
            r.task_id,
            r.order,
            r.y,
            r.first_success,
            r.second_success,
            replace(r.first, courtesy=0),
            replace(r.second, courtesy=0),
            r.misselected,
        )
        for r in data.rows
    ]
    style = fit_style(Synthetic(rows=rows, sides=flat, pairs=data.pairs).run())
    assert style["status"] == "ok"
    assert {"feature": "courtesy", "reason": "no variance in this run"} in style["dropped"]
    assert "courtesy" not in {t["feature"] for t in style["terms"]}


def test_sides_that_never_differ_get_one_line_instead_of_a_model() -> None:
    """A production log's recorded verdicts often carry no conversation: every side has the same
    (empty) features, so a fit could only hold success and position. Before, the report printed
    'controlled for style ()' over a model with every feature left out."""
    data = synthetic()
    empty = Features(0, 0, 0, 0, 0, 0, 0, 0)
    plain = replace(
        data,
        rows=[r._replace(first=empty, second=empty) for r in data.rows],
        sides=dict.fromkeys(data.sides, empty),
    )
    style = fit_style(plain.run())
    assert style["status"] == "skipped"
    assert "no feature differs between the sides" in style["note"]
    assert style["orders"] == len(data.rows) and style["controlled_rate"] is None


def test_the_rate_of_the_model_with_style_kept_has_its_delta_method_interval() -> None:
    """The style section printed the fitted model's own rate bare. It gets the controlled rate's
    interval (delta method on the logit scale, task-clustered influence), computed here by hand
    from sklearn's fit: the rate's influence per task is the fit's (gradient x H^-1 x the task's
    score) plus the task's own share of the average."""
    data = synthetic()
    style = fit_style(data.run())
    x, y, groups, _ = design(data)
    beta = LogisticRegression(C=np.inf, fit_intercept=False, tol=1e-10, max_iter=10_000)
    p = 1 / (1 + np.exp(-(x @ beta.fit(x, y).coef_[0])))
    decisive = np.array([r.first_success != r.second_success for r in data.rows])
    sign = np.array([1.0 if r.first_success < r.second_success else -1.0 for r in data.rows])
    q = np.where(sign > 0, p, 1 - p)
    n, rate = int(decisive.sum()), float(q[decisive].mean())
    grad = (sign * p * (1 - p))[decisive] @ x[decisive] / n
    h_inv = np.linalg.inv((x * (p * (1 - p))[:, None]).T @ x)
    psi = []
    for g in np.unique(groups):
        at = groups == g
        own = float((q[at & decisive] - rate).sum()) / n
        psi.append(float(grad @ h_inv @ (x[at] * (y - p)[at, None]).sum(axis=0)) + own)
    tasks = len(psi)
    se = math.sqrt(sum(v * v for v in psi) * tasks / (tasks - 1))
    logit, half = math.log(rate / (1 - rate)), Z * se / (rate * (1 - rate))
    wanted = [1 / (1 + math.exp(-(logit - half))), 1 / (1 + math.exp(-(logit + half)))]
    controlled = style["controlled_rate"]
    assert controlled["model_rate"] == pytest.approx(rate, rel=1e-4)
    assert controlled["model_rate_ci"] == pytest.approx(wanted, rel=1e-3)

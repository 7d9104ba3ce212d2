"""Coverage of the review's weighted agreement interval: the bootstrap it had (labelled pairs
resampled c of c within each stratum) against the one the report gives now (a stratified
Jeffreys interval: a Beta(k + 1/2, n - k + 1/2) draw per stratum, weighted), in the same
simulated reviews.

A run of TASKS tasks x PAIRS_PER_TASK pairs; each pair falls in a stratum (the shares of a
typical audit: few satisfied-but-failed, many controls); the judge agrees with the human at
its stratum's rate, moved per task on the logit scale (a task's conversations are hard or easy
for both). The review labels LABELS pairs per stratum at random, as `review export` samples.
Two estimands, both printed: the run's (the agreement a human would find labelling every pair
of this run: what "weighted to the audit" means) and such audits' (each stratum's rate averaged
over tasks, by Gauss-Hermite quadrature, weighted by the run's stratum shares).

    python bench/review_weights_coverage.py [REPS] [LABELS,...]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgeaudit.analysis.review_weights import STRATA, weighted_figures

TASKS, PAIRS_PER_TASK = 20, 50
SHARE = {"satisfied_but_failed": 0.06, "inconsistent": 0.14, "misselected": 0.10, "control": 0.70}
AGREE = {"satisfied_but_failed": 0.60, "inconsistent": 0.55, "misselected": 0.70, "control": 0.93}
TASK_SD = 0.8  # the task effect on the logit of agreement


def expit(v: np.ndarray) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-v)))


def logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


def mean_over_tasks(p: float, sd: float = TASK_SD) -> float:
    """E[expit(logit(p) + sd * Z)], Z standard normal, by 60-point Gauss-Hermite."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(60)
    return float(np.sum(weights * expit(logit(p) + sd * nodes)) / np.sqrt(2 * np.pi))


def naive_interval(
    agree: np.ndarray, w: np.ndarray, strata: np.ndarray, rng: np.random.Generator
) -> tuple[float, float] | None:
    """The interval before: labelled pairs drawn c of c within each stratum, 1000 resamples."""
    scale = np.zeros((1000, agree.size))
    for s in STRATA:
        items = np.flatnonzero(strata == s)
        if items.size:
            scale[:, items] = rng.multinomial(items.size, np.full(items.size, 1 / items.size), 1000)
    values = (scale * w) @ agree / (scale * w).sum(axis=1)
    if np.ptp(values) == 0:
        return None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def one_review(
    rng: np.random.Generator, labels: int, n_tasks: int = TASKS, sd: float = TASK_SD
) -> dict[str, Any]:
    tasks = np.repeat(np.arange(n_tasks), PAIRS_PER_TASK)
    strata = rng.choice(list(SHARE), size=tasks.size, p=list(SHARE.values()))
    effect = rng.normal(0, sd, n_tasks)[tasks]
    base = np.array([logit(AGREE[s]) for s in strata])
    agree_run = rng.random(tasks.size) < expit(base + effect)
    population = {s: int((strata == s).sum()) for s in SHARE}
    truth = sum(population[s] / tasks.size * mean_over_tasks(AGREE[s], sd) for s in SHARE)
    picked = np.concatenate(
        [rng.choice(np.flatnonzero(strata == s), size=min(labels, population[s]), replace=False)
         for s in SHARE]
    )  # fmt: skip
    judge = rng.choice(["A", "B"], size=picked.size)
    human = np.where(agree_run[picked], judge, np.where(judge == "A", "B", "A"))
    found = weighted_figures(
        judge.tolist(), human.tolist(), strata[picked].tolist(), population,
        tasks[picked].tolist(),
    )  # fmt: skip
    w = np.array([population[s] / min(labels, population[s]) for s in strata[picked]])
    before = naive_interval(agree_run[picked].astype(float), w, strata[picked], rng)
    after = found["weighted_agreement_ci"]
    return {"run": float(agree_run.mean()), "audits": truth, "before": before,
            "after": None if after is None else (after[0], after[1])}  # fmt: skip


def coverage(
    reps: int, labels: int, seed: int = 7, n_tasks: int = TASKS, sd: float = TASK_SD
) -> dict[str, float]:
    """Per method and estimand, the share of reviews whose interval holds it (a review
    without an interval counts as a miss)."""
    rng = np.random.default_rng(seed)
    hits = dict.fromkeys((f"{m} {e}" for m in ("before", "after") for e in ("run", "audits")), 0)
    for _ in range(reps):
        found = one_review(rng, labels, n_tasks, sd)
        for name in hits:
            method, estimand = name.split()
            ci = found[method]
            hits[name] += ci is not None and ci[0] <= found[estimand] <= ci[1]
    return {name: hit / reps for name, hit in hits.items()}


#: A second world where labels share tasks: 8 tasks, a strong task effect (most of a stratum's
#: labels then come from a few tasks whose conversations are hard or easy together).
CLUSTERED = (8, 3.0)


def main(reps: int, labels: list[int]) -> None:
    for n_tasks, sd in ((TASKS, TASK_SD), CLUSTERED):
        print(
            f"{n_tasks} tasks x {PAIRS_PER_TASK} pairs; task effect sd {sd} (logit); "
            f"{reps} reviews each; coverage of the run's agreement / such audits' agreement"
        )
        for n in labels:
            found = coverage(reps, n, n_tasks=n_tasks, sd=sd)
            print(
                f"{n:>3} labels per stratum: before (bootstrap of pairs) "
                f"{found['before run']:.1%} / {found['before audits']:.1%}; after (stratified "
                f"Jeffreys) {found['after run']:.1%} / {found['after audits']:.1%}"
            )


if __name__ == "__main__":
    REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    LABELS = [int(v) for v in sys.argv[2].split(",")] if len(sys.argv) > 2 else [3, 5, 10, 25]
    main(REPS, LABELS)

"""Coverage of the review's Cohen's kappa interval on labels clustered by task: the iid
asymptotic interval it had (Fleiss, Cohen & Everitt) against the same with the task design
effect the report gives it now. 30 tasks with 4 labelled pairs each; per task the human's
preference leans one way (Beta, intra-class correlation 0.3) and the judge agrees with it at a
task's own rate (mean 0.8, intra-class correlation 0.2). The true kappa is the population's,
in closed form.

    python bench/kappa_coverage.py [REPS]
"""

from __future__ import annotations

import sys

import numpy as np

from judgeaudit.analysis.stats import kappa_interval

TASKS, PER_TASK = 30, 4
LEAN, LEAN_ICC = 0.6, 0.3  # a task's share of human "A"
AGREE, AGREE_ICC = 0.8, 0.2  # a task's rate of the judge agreeing with the human


def beta(rng: np.random.Generator, mean: float, icc: float, size: int) -> np.ndarray:
    scale = 1 / icc - 1  # Beta(mean*s, (1-mean)*s) has intra-class correlation 1/(s+1)
    return rng.beta(mean * scale, (1 - mean) * scale, size=size)


def true_kappa() -> float:
    judge_a = LEAN * AGREE + (1 - LEAN) * (1 - AGREE)
    expected = LEAN * judge_a + (1 - LEAN) * (1 - judge_a)
    return (AGREE - expected) / (1 - expected)


def one_audit(rng: np.random.Generator) -> tuple[list[str], list[str], list[int]]:
    lean = np.repeat(beta(rng, LEAN, LEAN_ICC, TASKS), PER_TASK)
    agree = np.repeat(beta(rng, AGREE, AGREE_ICC, TASKS), PER_TASK)
    human = np.where(rng.random(TASKS * PER_TASK) < lean, "A", "B")
    same = rng.random(TASKS * PER_TASK) < agree
    judge = np.where(same, human, np.where(human == "A", "B", "A"))
    tasks = [int(t) for t in np.repeat(np.arange(TASKS), PER_TASK)]
    return [str(j) for j in judge], [str(h) for h in human], tasks


def coverage(reps: int, seed: int = 11) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    kappa = true_kappa()
    hits = {"iid asymptotic (before)": 0, "task design effect (the report)": 0}
    for _ in range(reps):
        judge, human, tasks = one_audit(rng)
        for name, clusters in zip(hits, (None, tasks), strict=True):
            low, high = kappa_interval(judge, human, clusters)
            hits[name] += low is not None and high is not None and low <= kappa <= high
    return {name: hit / reps for name, hit in hits.items()}


def main(reps: int) -> None:
    print(f"true kappa {true_kappa():.3f}; {TASKS} tasks x {PER_TASK} labelled pairs")
    for name, share in coverage(reps).items():
        print(f"{name:<34} {share:.1%} of {reps}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)

"""Coverage of the report's interval against the task-clustered percentile bootstrap it
replaced (issue 21, item 4): ~66 decisive pairs over 33 tasks (2 each), a task effect with
intra-class correlation 0.05, true misselection rate 2%.

    python bench/interval_coverage.py [REPS]
"""

from __future__ import annotations

import sys

import numpy as np

from judgeaudit.analysis.clustered import Sums, interval
from judgeaudit.analysis.stats import cluster_bootstrap, wilson


def main(reps: int) -> None:
    rng = np.random.default_rng(7)
    true, icc = 0.02, 0.05
    a, b = true * (1 / icc - 1), (1 - true) * (1 / icc - 1)
    hits = {"design-effect Wilson (the report)": 0, "Wilson": 0, "percentile bootstrap": 0}
    for _ in range(reps):
        k = rng.binomial(2, rng.beta(a, b, size=33))
        ours = interval(Sums.of([(float(x), 2.0) for x in k]))
        olow, ohigh = ours["ci_low"], ours["ci_high"]
        hits["design-effect Wilson (the report)"] += (
            olow is not None and ohigh is not None and olow <= true <= ohigh
        )
        low, high = wilson(int(k.sum()), 66)
        hits["Wilson"] += low is not None and high is not None and low <= true <= high
        blow, bhigh = cluster_bootstrap(list(k), [2] * 33)
        hits["percentile bootstrap"] += (
            blow is not None and bhigh is not None and (blow <= true <= bhigh)
        )
    for name, hit in hits.items():
        print(f"{name:<36} {hit / reps:.1%} of {reps}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)

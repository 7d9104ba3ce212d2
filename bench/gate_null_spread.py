"""Do a judge's null re-judges vary as much as the gate's task-clustered error says?

Reads a ``gate_calibration.py --workdir DIR`` directory: the source and every null re-judge
judged the same decisive pairs. Per run, its misselection on them; per task (and per group of
tasks: template, task type, agent pair), its count of misselected pairs. If tasks were
independent, the variance across runs of the total would equal the sum of the per-task
variances (ratio 1; the gate's CR1 interval assumes it); a ratio above 1 is correlation
across tasks, which the gate's interval does not see. A group whose summed variance reaches
the total's explains it.

    python bench/gate_null_spread.py DIR
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import numpy as np
from scipy.stats import chi2

QUERY = (
    "SELECT task_id, agent_a, agent_b, trial, task_type, COALESCE(misselected, 0) "
    "FROM audit_pairs WHERE run_id = ? AND success_a != success_b "
    "ORDER BY task_id, agent_a, agent_b, trial"
)


def load(out: Path) -> list[tuple[str, str, str, int, str, int]]:
    db = sqlite3.connect(f"file:{out / 'audit.db'}?mode=ro", uri=True)
    try:
        run = db.execute("SELECT run_id FROM runs ORDER BY created_at DESC LIMIT 1").fetchone()[0]
        return list(db.execute(QUERY, (run,)))
    finally:
        db.close()


def grouped(m: np.ndarray, keys: list[str]) -> float:
    """The summed variance across runs of each group's misselected count."""
    index = np.unique(keys, return_inverse=True)[1]
    sums = np.zeros((m.shape[0], index.max() + 1))
    np.add.at(sums.T, index, m.T)
    return float(sums.var(axis=0, ddof=1).sum())


def main(argv: list[str]) -> int:
    folder = Path(argv[0])
    outs = sorted(p.parent for p in folder.glob("null-*/.calibration-done"))
    outs += sorted(p.parent for p in folder.glob("src-*/.calibration-done"))
    rows = [load(out) for out in outs]
    base = [r[:4] for r in rows[0]]
    if any([r[:4] for r in other] != base for other in rows[1:]):
        raise SystemExit("gate_null_spread: the runs did not judge the same decisive pairs")
    m = np.array([[r[5] for r in run] for run in rows], dtype=float)
    n = m.shape[1]
    per_task = grouped(m, [r[0] for r in rows[0]])
    total = float(m.sum(axis=1).var(ddof=1))
    print(f"{len(outs)} runs (the source and its null re-judges), {n} decisive pairs each")
    print(
        f"misselection across runs: SD {m.mean(axis=1).std(ddof=1) * 100:.3f} points; "
        f"if tasks were independent: {np.sqrt(per_task) / n * 100:.3f}"
    )
    ratio, df = total / per_task, len(outs) - 1
    low, high = (ratio * df / chi2.ppf(q, df) for q in (0.975, 0.025))
    p_value = chi2.sf(ratio * df, df)
    print(
        f"variance of the total / sum of per-task variances: {ratio:.2f} [{low:.2f}, {high:.2f}] "
        f"(chi-square {df} df, 95%, per-task sum taken as known; one-sided p={p_value:.3f} "
        "against 1)"
    )
    groups = {
        "template (task number mod 42)": [
            str((int(r[0].split("-")[-1]) - 1) % 42) for r in rows[0]
        ],
        "task type": [r[4] for r in rows[0]],
        "agent pair": [f"{r[1]}~{r[2]}" for r in rows[0]],
    }
    for name, keys in groups.items():
        ratio = grouped(m, keys) / per_task
        print(f"  summed variance of groups by {name} ({len(set(keys))}): {ratio:.2f} x per task")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

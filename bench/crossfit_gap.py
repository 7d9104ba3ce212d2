"""How much a cross-fitted capability gap would change the demo's buckets (issue 21, item 5).

The capability gap is each agent's success rate over the run; a pair's own two conversations
are among the labels it averages. Cross-fitted, a pair at trial t uses each agent's success
rate over the *other* trials only. This reads finished runs (e.g. `judgeaudit demo --seeds 10
--out DIR`) and prints, per run, how many pairs land in another bucket and how far each
bucket's misselection rate moves, with the one gap definition and bucketing.

    python bench/crossfit_gap.py DIR/seed-*
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from judgeaudit.audit.store import open_readonly
from judgeaudit.audit.units import gap as gaps
from judgeaudit.errors import JudgeauditError


def crossfit(out: Path) -> dict[str, float]:
    db = open_readonly(out / "audit.db")  # never creates an empty file for a wrong folder
    try:
        pairs = pd.read_sql_query("SELECT * FROM audit_pairs", db)
        traj = pd.read_sql_query("SELECT agent, trial, success FROM trajectories", db)
    finally:
        db.close()
    if traj["trial"].nunique() < 2:
        raise SystemExit(
            f"{out}: one trial per agent; cross-fitting needs two or more"
            " (a rep-N folder of bench/gate_calibration.py --workdir, or a run with trials = 2)"
        )
    per_trial: dict[tuple[str, int], tuple[int, int]] = {}
    per_agent: dict[str, tuple[int, int]] = {}
    for agent, trial, success in traj.itertuples(index=False):
        key = (str(agent), int(trial))
        k, n = per_trial.get(key, (0, 0))
        per_trial[key] = (k + int(success), n + 1)
        k, n = per_agent.get(str(agent), (0, 0))
        per_agent[str(agent)] = (k + int(success), n + 1)

    def other_trials(agent: str, trial: int) -> float:
        s, n = per_agent[agent]
        own_s, own_n = per_trial.get((agent, trial), (0, 0))
        return (s - own_s) / (n - own_n)

    trial_b = pairs["trial_b"].fillna(pairs["trial"]).astype(int)
    frame = pd.DataFrame(
        {
            "capability_a": [
                other_trials(a, t) for a, t in zip(pairs["agent_a"], pairs["trial"], strict=True)
            ],
            "capability_b": [
                other_trials(b, t) for b, t in zip(pairs["agent_b"], trial_b, strict=True)
            ],
        }
    )
    bins = gaps.default_bins("capability")
    labels = ["near", "small", "medium", "large"]
    before = gaps.bucket_series(gaps.gap_series(pairs, "capability"), bins, labels)
    after = gaps.bucket_series(gaps.gap_series(frame, "capability"), bins, labels)
    decisive = pairs["success_a"] != pairs["success_b"]
    missel = pairs["misselected"].fillna(0).astype(int)
    out_row: dict[str, float] = {"pairs": len(pairs), "moved": int((before != after).sum())}
    for label in labels:
        rates = []
        for cut in (before, after):
            mask = (cut == label) & decisive
            rates.append(missel[mask].mean() if mask.any() else float("nan"))
        out_row[f"{label} change (points)"] = 100 * (rates[1] - rates[0])
    return out_row


def main(dirs: list[str]) -> None:
    try:
        rows = {Path(d).name: crossfit(Path(d)) for d in dirs}
    except JudgeauditError as error:
        raise SystemExit(f"error: {error}") from None
    table = pd.DataFrame(rows).T
    print(table.round(2).to_string())
    print(f"\npairs moved: {int(table['moved'].sum())} of {int(table['pairs'].sum())}")


if __name__ == "__main__":
    main(sys.argv[1:])

"""The smallest pairs frame the review's agreement figures read, shared by their unit tests."""

from __future__ import annotations

import pandas as pd


def review_pairs(tasks: list[str], judge: list[str]) -> pd.DataFrame:
    """One pair per entry of ``tasks``: x succeeded, y failed, the judge preferred ``judge``."""
    n = len(tasks)
    return pd.DataFrame(
        {"pair_id": [f"p{i}" for i in range(n)], "task_id": tasks, "agent_a": "x",
         "agent_b": "y", "trial": list(range(n)), "trial_b": list(range(n)), "success_a": 1,
         "success_b": 0, "judge_score_a": 3.0, "judge_score_b": 1.0, "judge_pref": judge,
         "consistent": 1, "misselected": 0}
    )  # fmt: skip

"""A stored human label that contradicts itself (review import's rule, label_conflict) is left
out of the review's agreement figures, and the report says how many and which."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from judgeaudit.analysis.fmt import review_lines
from judgeaudit.analysis.review import agreement
from tests.review_frames import review_pairs


def test_contradicting_labels_are_left_out_of_agreement_and_counted() -> None:
    """A label whose preference contradicts its own success marks (review import's rule) is
    left out of both comparisons, and the report says how many and which."""
    tasks = [f"t{i}" for i in range(10)]
    pairs = review_pairs(tasks, ["A"] * 10)
    labels = pd.DataFrame(
        {"pair_id": [f"p{i}" for i in range(10)],
         "human_success_a": [1] * 8 + [1, np.nan],
         "human_success_b": [0] * 8 + [0, 0],
         "human_pref": ["A"] * 7 + ["tie", "B", "B"]}
    )  # fmt: skip
    found = agreement(pairs, labels)
    # p7 (tie) and p8 (B) prefer what their marks (A ok, B failed) say lost; p9 has no A mark
    assert found["contradicting"] == {"count": 2, "pair_ids": ["p7", "p8"]}
    assert found["labelled"] == 10
    kept = [i for i in range(10) if i not in (7, 8)]
    judge = found["judge_vs_human"]
    assert judge["n"] == 8
    assert judge["agreement"] == pytest.approx(7 / 8)
    assert found["success_check_vs_human"]["n"] == 15  # A of p0-p6; B of p0-p6 and p9
    assert judge["kappa"] == pytest.approx(
        cohen_kappa_score(["A"] * 8, [labels["human_pref"][i] for i in kept])
    )
    text = review_lines(found)
    assert text[1] == (
        "  2 labelled pairs left out of these figures, human_pref contradicting the label's own "
        "success marks (p7, p8); correct them in the app's Review or with `review import`"
    )

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


def test_a_conversation_marked_both_ways_is_left_out_and_said() -> None:
    """An older audit.db (stored before either save path checked) holds one conversation marked 1
    in one pair and 0 in another: the success check vs human counts neither mark (by hand: the
    two other conversations, y's and z's), and one line names it and its pairs."""
    pairs = review_pairs(["t0", "t0"], ["A", "A"])
    pairs["trial"] = pairs["trial_b"] = 0  # both pairs show x's and y's conversation of t0/t0
    pairs.loc[1, "agent_b"] = "z"
    labels = pd.DataFrame(
        {"pair_id": ["p0", "p1"], "human_success_a": [1, 0], "human_success_b": [0, 0],
         "human_pref": [np.nan, np.nan]}
    )  # fmt: skip
    found = agreement(pairs, labels)
    assert found["marks_disagreeing"] == {
        "count": 1, "conversations": ["x's t0/t0"], "pair_ids": ["p0", "p1"]
    }  # fmt: skip
    assert found["success_check_vs_human"]["n"] == 2  # y's and z's conversations, once each
    assert review_lines(found)[1] == (
        "  1 conversation left out of the success check vs human, marked 1 in one pair and 0 in "
        "another (x's t0/t0; pairs p0, p1); give them one mark in the app's Review or with "
        "`review import`"
    )

"""The one definition of a decisive pair and of misselection, on scalars and on frames."""

from __future__ import annotations

import pandas as pd

from judgeaudit.analysis.frame import decisive_mask
from judgeaudit.audit.units.outcome import decisive, is_misselected, true_winner


def test_decisive_is_exactly_one_success_on_scalars_and_frames() -> None:
    cases = [(0, 0), (0, 1), (1, 0), (1, 1)]
    frame = pd.DataFrame(cases, columns=["success_a", "success_b"])
    assert decisive_mask(frame).tolist() == [decisive(bool(a), bool(b)) for a, b in cases]
    assert decisive_mask(frame).tolist() == [False, True, True, False]


def test_misselected_only_when_the_judge_prefers_the_failed_side() -> None:
    assert true_winner(True, False) == "A" and true_winner(False, True) == "B"
    assert true_winner(True, True) is None and true_winner(False, False) is None
    assert is_misselected(True, False, "B") and is_misselected(False, True, "A")
    assert not is_misselected(True, False, "A") and not is_misselected(True, False, "tie")
    assert not is_misselected(True, True, "B") and not is_misselected(False, False, "A")

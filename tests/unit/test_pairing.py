"""How two runs' shared pairs fail to be the same pairs (`analysis/pairing.py`): within one
lineage too, a pair whose success labels differ is not the same conversation, so the runs are
not paired at all (the rule before left such pairs out and gated the rest)."""

from __future__ import annotations

import pandas as pd

from judgeaudit.analysis.pairing import differences


def _pairs(rows: list[tuple[str, str | None, int, int]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"task_id": task, "trial": 0, "trial_b": None, "agent_a": "a", "agent_b": "b",
             "source_id": source, "success_a": sa, "success_b": sb}
            for task, source, sa, sb in rows
        ]
    )  # fmt: skip


def test_a_relabelled_pair_in_one_lineage_is_named_not_left_out() -> None:
    before = _pairs([("t1", "p1", 1, 0), ("t2", "p2", 0, 1), ("t3", None, 1, 0)])
    after = _pairs([("t1", "p1", 1, 0), ("t2", "p2", 1, 1), ("t3", "p3", 1, 0)])
    # a log id missing on one side (a file stored before ids were kept) is not a difference
    assert differences(before, after, lineage=True) == [
        "of the 3 pairs both hold, success labels differ in 1"
    ]
    assert differences(before, before, lineage=True) == []


def test_other_log_ids_and_no_shared_pair_across_lineages() -> None:
    day_1 = _pairs([("t1", "2026-11-01/p1", 1, 0), ("t2", "2026-11-01/p2", 0, 1)])
    day_2 = _pairs([("t1", "2026-11-02/p1", 1, 0), ("t2", "2026-11-02/p2", 1, 0)])
    assert differences(day_1, day_2, lineage=False) == [
        "of the 2 pairs both hold, the logs' pair ids differ in 2 and success labels differ in 1"
    ]
    elsewhere = _pairs([("t9", "p9", 1, 0)])
    assert differences(day_1, elsewhere, lineage=False) == ["no pair in common"]
    assert differences(day_1, elsewhere, lineage=True) == []

"""The gate's family of tests (``paired.gate``): the overall row holds half of alpha, the
buckets with data share the rest (weighted Holm), checked on rows built by hand."""

from __future__ import annotations

from typing import Any

import pytest

from judgeaudit.analysis.paired import family_weights, gate, multiplicity_text


def _row(label: str, p_value: float | None, change: float) -> dict[str, Any]:
    return {
        "label": label,
        "p_value": p_value,
        "testable": p_value is not None,
        "change": change,
        "ci_high": change + 0.05,
    }


def _rows() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    # As in a new user's trial: overall rose 11.3 points at p = 0.0156, no bucket significant.
    buckets = [
        _row("near", 0.30, 0.05),
        _row("small", 0.20, 0.08),
        _row("medium", 0.50, 0.02),
        _row("large", 0.04, 0.14),
    ]
    return buckets, _row("overall", 0.0156, 0.113)


def test_a_clear_overall_rise_is_worse_where_plain_holm_called_it_inconclusive() -> None:
    buckets, overall = _rows()
    assert gate(buckets, overall) == 5
    # 0.0156 / 0.5 = 0.0312 < 0.05 (hand computed); plain Holm: 5 * 0.0156 = 0.078.
    assert overall["p_adjusted"] == pytest.approx(0.0312)
    assert overall["significant_rise"] and overall["alpha_share"] == 0.5
    assert [b["alpha_share"] for b in buckets] == [0.125] * 4
    assert not any(b["significant_rise"] for b in buckets)
    buckets, overall = _rows()
    gate(buckets, overall, share=None)
    assert overall["p_adjusted"] == pytest.approx(0.078) and not overall["significant_rise"]


def test_a_bucket_alone_can_still_fail_the_gate_and_a_rejected_share_passes_on() -> None:
    buckets, overall = _rows()
    buckets[0]["p_value"] = 0.001  # near: 0.001 * 1 / 0.125 = 0.008 first in the order
    gate(buckets, overall)
    # Then overall: 0.0156 * 0.875 / 0.5 = 0.0273; both rejected at 0.05.
    assert buckets[0]["p_adjusted"] == pytest.approx(0.008) and buckets[0]["significant_rise"]
    assert overall["p_adjusted"] == pytest.approx(0.0273) and overall["significant_rise"]


def test_weights_when_one_side_of_the_family_is_missing() -> None:
    buckets, overall = _rows()
    assert family_weights([overall], overall, 0.5) == [1.0]
    assert family_weights(buckets[:2], overall, 0.5) == [0.5, 0.5]
    assert family_weights([*buckets[:2], overall], overall, None) == pytest.approx([1 / 3] * 3)
    untestable = [_row("near", None, 0.0)]
    assert gate(untestable, _row("overall", None, 0.0)) == 0
    assert untestable[0]["p_adjusted"] is None and untestable[0]["alpha_share"] is None


def test_the_rule_is_named_as_it_was_applied() -> None:
    buckets, overall = _rows()
    assert multiplicity_text(buckets, overall, 5).startswith("weighted Holm across the 5 tests")
    for b in buckets:
        b["testable"] = False
    said = multiplicity_text(buckets, overall, 1)
    assert said.startswith("Holm across the 1 tests") and "only the overall row has data" in said
    overall["testable"] = False
    assert multiplicity_text(buckets, overall, 0).startswith("no adjustment")

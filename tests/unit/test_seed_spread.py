"""`demo --seeds`: each figure's min / median / max over seeds and the seeds each claim holds in."""

from __future__ import annotations

from typing import Any, cast

from judgeaudit.analysis.report_types import Report
from judgeaudit.analysis.seeds import spread, spread_lines


def _report(near: float, large: float, near_low: float, large_high: float) -> Report:
    def bucket(alias: str, rate: float, low: float, high: float) -> dict[str, Any]:
        return {"alias": alias, "rate": rate, "tie_aware_rate": rate, "decisive": 10,
                "ci_low": low, "ci_high": high}  # fmt: skip

    # only the figures the spread reads
    return cast(
        Report,
        {
            "buckets": [
                bucket("near", near, near_low, 0.5),
                bucket("large", large, 0.0, large_high),
            ],
            "overall": {"rate": 0.1, "tie_aware_rate": 0.2, "tie": 2, "decisive": 20},
            "gap_model": {"odds_ratio_per_0_1": 0.8, "ci": [0.7, 0.95]},
            "satisfied_but_failed": {"judge": {"rate": 0.1}, "user_simulator": {"rate": 0.3}},
            "position_bias": [],
        },
    )


def test_spread_and_claims_over_seeds() -> None:
    summary = spread(
        {
            1: _report(0.20, 0.02, 0.10, 0.05),  # near interval above large
            2: _report(0.10, 0.03, 0.04, 0.06),  # overlapping
            3: _report(0.02, 0.04, 0.00, 0.08),  # inverted
        }
    )
    near = summary["figures"]["near misselection rate"]
    assert (near["min"], near["median"], near["max"]) == (0.02, 0.10, 0.20)
    assert summary["claims"]["near rate above large rate"] == 2
    assert summary["claims"]["near interval above large interval"] == 1
    assert summary["claims"]["odds ratio per 0.1 below 1 (interval)"] == 3
    text = "\n".join(spread_lines(summary))
    assert "near misselection rate" in text and "2.0% / 10.0% / 20.0%" in text
    assert "near interval above large interval" in text and "1/3" in text

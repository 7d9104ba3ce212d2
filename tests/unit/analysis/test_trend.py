"""The trend's style odds ratios: an unstable period (its 95% interval over 100-fold: 9500 /
66.7 = 142 by hand) keeps its figures and the flag in ``style_odds_ratios`` and is a gap in the
charted series; alerts never test style odds ratios (docs/trend.md)."""

from __future__ import annotations

from typing import Any

from judgeaudit.analysis.trend import period_figures, series
from judgeaudit.analysis.trend_alerts import points_of


def rate(value: float) -> dict[str, Any]:
    return {"rate": value, "ci_low": value / 2, "ci_high": value * 2, "decisive": 50, "wrong": 5}


def report(cites: tuple[float, float, float]) -> dict[str, Any]:
    """A report as a history kept it before the flag existed: no ``unstable`` key."""
    odds, low, high = cites
    return {
        "pairs": 100, "overall": rate(0.1), "buckets": [],
        "satisfied_but_failed": {"judge": {**rate(0.1), "satisfied": 40},
                                 "user_simulator": {**rate(0.2), "satisfied": 30}},
        "verdicts": {"no_verdict_orders": 0, "orders": 200, "no_verdict_rate": 0.0},
        "style": {"terms": [
            {"feature": "cites_ids", "kind": "process", "odds_ratio": odds, "ci_low": low,
             "ci_high": high, "p_value": 0.001},
            {"feature": "position", "kind": "position", "odds_ratio": 1.5, "ci_low": 1.2,
             "ci_high": 1.9, "p_value": 0.001},
        ]},
    }  # fmt: skip


def test_an_unstable_period_is_flagged_and_a_gap_in_the_series() -> None:
    periods = []
    for name, cites in (("d1", (20.6, 4.48, 94.4)), ("d2", (796.0, 66.7, 9500.0))):
        figures = period_figures(report(cites), {"rate": 0.8, "ci_low": 0.7, "ci_high": 0.9})  # type: ignore[arg-type]
        periods.append({"period": name, "human_disagreement": None, **figures})
    assert [t["unstable"] for p in periods for t in p["style_odds_ratios"]] == [False, True]
    assert periods[1]["style_odds_ratios"][0]["odds_ratio"] == 796.0  # kept, flagged
    drawn = series({"periods": periods})["odds ratio cites_ids"]
    assert drawn[0] == {"period": "d1", "rate": 20.6, "ci_low": 4.48, "ci_high": 94.4, "n": None}
    assert drawn[1] == {"period": "d2", "rate": None, "ci_low": None, "ci_high": None, "n": None}
    assert set(points_of({"periods": periods})) == {"misselection", "near"}  # no style alert

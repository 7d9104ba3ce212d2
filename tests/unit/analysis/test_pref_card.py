"""The preference card's style terms: stable ones first, an unstable one flagged with its
reason, in the JSON and the Markdown (the demo's style-weighted re-judge: ``cites_ids`` 796
[66.7, 9.5e+03] spans 9500 / 66.7 = 142-fold by hand, over 100)."""

from __future__ import annotations

from judgeaudit.analysis.pref_card import style_summary
from judgeaudit.analysis.pref_card_text import _style_lines


def term(feature: str, odds: float, low: float, high: float) -> dict[str, object]:
    return {"feature": feature, "kind": "process", "odds_ratio": odds, "ci_low": low,
            "ci_high": high, "p_value": 0.001}  # fmt: skip


SECTION = {
    "status": "ok",
    "terms": [
        term("cites_ids", 796.0, 66.7, 9500.0),
        term("asks_confirmation", 43.1, 7.56, 246.0),
        term("claimed_done", 9.56, 2.43, 37.7),
        term("position", 1.69, 1.53, 1.86),
    ],
}


def test_the_card_lists_stable_terms_first_and_flags_the_unstable_one() -> None:
    summary = style_summary(SECTION, "out/judges", "run-1")
    names = [t["feature"] for t in summary["terms"]]
    assert names == ["asks_confirmation", "claimed_done", "cites_ids"]
    cites = summary["terms"][-1]
    assert cites["unstable"] is True and "factor of 142" in cites["unstable_reason"]
    assert summary["terms"][0]["unstable"] is False
    assert summary["terms"][0]["unstable_reason"] is None
    lines = _style_lines(summary)
    assert lines[-1].startswith("- cites_ids (process): odds ratio 796 [66.7, 9.5e+03]")
    assert "; unstable: 95% interval spans a factor of 142" in lines[-1]
    assert "unstable" not in lines[-2]

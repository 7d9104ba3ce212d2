"""The leaderboard's "top style OR" cell: the largest *stable* feature odds ratio; an unstable
one (95% interval over 100-fold: the demo's style-weighted re-judge gave ``cites_ids 796``
[66.7, 9.5e+03], 142-fold by hand) only when no term is stable, and then marked."""

from __future__ import annotations

from judgeaudit.analysis.leaderboard import style_cell
from judgeaudit.analysis.why import top_style_term


def term(feature: str, odds: float, low: float, high: float) -> dict[str, object]:
    return {"feature": feature, "kind": "process", "odds_ratio": odds, "ci_low": low,
            "ci_high": high}  # fmt: skip


CITES = term("cites_ids", 796.0, 66.7, 9500.0)
ASKS = term("asks_confirmation", 43.1, 7.56, 246.0)


def test_the_cell_names_the_largest_stable_term() -> None:
    top = top_style_term({"terms": [CITES, ASKS]})
    assert top is not None and style_cell(top) == "asks_confirmation 43.1"


def test_an_unstable_term_is_named_only_alone_and_marked() -> None:
    top = top_style_term({"terms": [CITES]})
    assert top is not None and style_cell(top) == "cites_ids 796 (unstable)"
    huge = term("claimed_done", 3.64e4, 28.8, 4.6e7)
    assert style_cell(huge) == "claimed_done 3.64e+04 (unstable)"
    assert style_cell(None) == "n/a"

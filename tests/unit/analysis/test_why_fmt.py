"""Every printed form of the style model flags an unstable odds ratio and lists it after the
stable ones. The figures are the demo's style-weighted re-judge
(``judge-default:diligence=0,evidence=0.3,style=0.7``): ``cites_ids`` 796 [66.7, 9.5e+03] spans
9500 / 66.7 = 142-fold by hand; ``asks_confirmation`` 43.1 [7.56, 246] spans 32.5-fold."""

from __future__ import annotations

from typing import Any

from judgeaudit.analysis.why_fmt import (
    forest_svg,
    forest_text,
    headline,
    style_lines,
    style_markdown,
)


def term(feature: str, kind: str, odds: float, low: float, high: float) -> dict[str, Any]:
    return {"feature": feature, "kind": kind, "odds_ratio": odds, "ci_low": low,
            "ci_high": high, "p_value": 0.01, "unit": "yes minus no"}  # fmt: skip


def section() -> dict[str, Any]:
    """As a report kept before the flag existed: sorted by |log OR| alone, no ``unstable`` key."""
    rate = {"rate": 0.12, "ci_low": 0.09, "ci_high": 0.16, "orders": 1221, "method": "m",
            "model_rate": 0.12}  # fmt: skip
    return {
        "status": "ok", "method": "logit", "orders": 2287, "tasks": 42, "pairs": 649,
        "terms": [
            term("cites_ids", "process", 796.0, 66.7, 9500.0),
            term("asks_confirmation", "process", 43.1, 7.56, 246.0),
            term("claimed_done", "claim", 9.56, 2.43, 37.7),
            term("length", "style", 2.48, 1.51, 4.09),
        ],
        "dropped": [], "zeroed": ["length"], "raw_rate": rate, "controlled_rate": rate,
        "explained": 28, "misselected": 56, "explained_by": {"length": 28},
    }  # fmt: skip


def test_the_headline_names_the_stable_terms_it_rewards() -> None:
    line = headline(section())
    # four terms qualify (interval above 1): the three stable ones are named, the unstable
    # fourth is counted, not dropped without a word (a new user's trial)
    assert line.startswith("rewards asks confirmation, claimed done, length and 1 more (")
    assert "cites" not in line
    three = {**section(), "terms": section()["terms"][1:]}
    assert headline(three).startswith("rewards asks confirmation, claimed done, length (")
    alone = {**section(), "terms": [term("cites_ids", "process", 796.0, 66.7, 9500.0)]}
    assert headline(alone).startswith("rewards cites order/item ids (size unstable) (")


def test_the_text_and_markdown_flag_it_last_with_a_note() -> None:
    lines = style_lines(section())
    rows = [ln for ln in lines if " OR " in ln]
    assert [r.split()[0] for r in rows] == ["asks", "claimed", "length", "cites"]
    assert rows[-1].endswith("(unstable)") and not any(r.endswith(")") for r in rows[:-1])
    assert any("more than 100-fold apart" in ln for ln in lines)
    md = style_markdown(section())
    table = [ln for ln in md if ln.startswith("| ") and "odds ratio" not in ln]
    assert table[-1].startswith("| cites order/item ids | 796 (unstable) | [66.7, 9.5e+03] |")
    assert any(ln.startswith("(unstable) marks a term") for ln in md)
    stable = {**section(), "terms": section()["terms"][1:]}
    assert "(unstable)" not in "\n".join(style_lines(stable) + style_markdown(stable))


def test_the_forest_plots_flag_it_last() -> None:
    text = forest_text(section())
    assert text[3].startswith("cites order/item ids") and text[3].endswith(" 796 (unstable)")
    assert text[0].startswith("asks confirmation") and text[0].endswith(" 43.1")
    svg = forest_svg(section(), "what moves this judge")
    assert svg.count("stroke-dasharray='4,3'") == 1  # the unstable interval alone, dashed
    assert svg.index(">asks confirmation<") < svg.index(">cites order/item ids<")
    assert ">796 (unstable)</text>" in svg


def test_the_rate_with_style_kept_is_printed_with_its_interval() -> None:
    """It was printed bare; it carries the controlled rate's interval, named on the next line
    (a section kept before it had one says so, never a bare rate)."""
    found = section()
    found["controlled_rate"] = {**found["controlled_rate"], "model_rate_ci": [0.101, 0.142]}
    lines = "\n".join(style_lines(found))
    assert "the model with style kept: 12.0% [10.1, 14.2], the same interval)" in lines
    assert "controlled: m)" in lines
    assert "style kept: 12.0% [no CI]" in "\n".join(style_lines(section()))


def test_an_interval_just_above_one_keeps_its_digits() -> None:
    """`tool calls OR 1.46 95% CI [1, 2.13]` (ci_low 1.003) read as touching 1 beside a
    headline counting it as excluding 1 (a new user): three significant digits, zeros kept."""
    just = {**section(), "terms": [term("tool_calls", "process", 1.46, 1.0031, 2.13)]}
    assert any("OR    1.46 95% CI [1.003, 2.13]" in line for line in style_lines(just))
    assert "| [1.003, 2.13] |" in "\n".join(style_markdown(just))
    assert headline(just).startswith("rewards ")
    # a bound that is not 1 but rounds to it gets the digits that tell it from 1 (reviewer)
    near = {**section(), "terms": [term("length", "style", 1.2, 0.9996, 1.5)]}
    assert any("95% CI [0.9996, 1.50]" in line for line in style_lines(near))
    one = {**section(), "terms": [term("length", "style", 1.2, 1.0, 1.5)]}
    assert any("95% CI [1.00, 1.50]" in line for line in style_lines(one))

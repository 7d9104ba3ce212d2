"""The forest plot's axis stops at 1e-3 and 1e3: an interval past it was drawn ending at the
axis label as if it ended there (OR 3.64e+03 [28.8, 4.6e+05]; a new user's trial). Arrows mark
the ends it runs past, in characters (the app's Why view) and in the HTML report's SVG."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from judgeaudit.analysis.why_fmt import forest_svg, forest_text

STYLE: dict[str, Any] = {
    "status": "ok",
    "terms": [
        {"feature": "claimed_done", "kind": "claim", "odds_ratio": 3640.0, "ci_low": 28.8,
         "ci_high": 4.6e5},
        {"feature": "length", "kind": "style", "odds_ratio": 1.2, "ci_low": 0.8, "ci_high": 1.9},
        {"feature": "turns", "kind": "style", "odds_ratio": 0.5, "ci_low": 1e-5, "ci_high": 0.9},
    ],
}  # fmt: skip


def test_intervals_past_the_axis_end_in_an_arrow_and_others_do_not() -> None:
    # the stable term first: the two whose intervals span over 100-fold are unstable, last
    inside, past_high, past_low = forest_text(STYLE)[:3]
    plot = slice(25, 25 + 40)
    assert inside.startswith("length")
    assert past_high[plot].rstrip().endswith("●▶") and "◀" not in past_high
    assert "▶" not in inside and "◀" not in inside
    assert past_low[plot].startswith("◀") and "▶" not in past_low
    assert past_high.endswith(" 3.64e+03 (unstable)")  # the value itself, unclipped, flagged


def test_the_svg_draws_an_arrowhead_at_each_end_run_past() -> None:
    svg = forest_svg(STYLE, "style")
    assert svg.count("<path d='M") == 2  # one at the high end, one at the low end


def _tick_labels(svg: str) -> list[tuple[float, str]]:
    """The axis labels (x, text) at the SVG's foot, read from its text elements."""
    foot = max(int(y) for y in re.findall(r"<text x='[^']+' y='(\d+)' font-size='10'", svg))
    return [
        (float(x), label)
        for x, label in re.findall(
            rf"<text x='([\d.]+)' y='{foot}' font-size='10' text-anchor='middle'>([^<]+)</text>",
            svg,
        )
    ]


def test_a_wide_axis_is_labelled_to_its_ends() -> None:
    """The axis here runs 1e-3 to 1e3 (both ends clipped): the fixed ticks 0.25 to 10 left
    three decades each side unlabelled. Powers of ten label it (1-2-5 would crowd: by hand,
    six decades over 420 px put 0.001 and 0.002 10 px apart)."""
    labels = _tick_labels(forest_svg(STYLE, "style"))
    assert [text for _, text in labels] == ["0.001", "0.01", "0.1", "1", "10", "100", "1000"]
    xs = [x for x, _ in labels]
    assert xs[0] == 190 and xs[-1] == 190 + 420  # the axis's own ends
    assert all(b - a == pytest.approx(70) for a, b in itertools.pairwise(xs))


def test_a_narrow_axis_keeps_one_two_five() -> None:
    narrow = {"status": "ok", "terms": [STYLE["terms"][1]]}  # 0.8 to 1.9: the axis 0.5 to 2
    assert [text for _, text in _tick_labels(forest_svg(narrow, "style"))] == ["0.5", "1", "2"]

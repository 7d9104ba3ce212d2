"""The gate's bound reads on its side of the margin: `compare --fail-on-rise` printed "bound
+2.0" beside "not worse" at a 2-point margin for a bound of 1.977 points (a new user's trial),
while the rule is "below the margin"."""

from __future__ import annotations

import pytest

from judgeaudit.analysis.drift import bound_pts


@pytest.mark.parametrize(
    ("upper", "margin", "shown"),
    [
        (0.01977, 0.02, "+1.98"),  # below: 1.98 < 2
        (0.0204, 0.02, "+2.04"),  # above
        (0.019999, 0.02, "+1.9999"),  # four decimals at most
        (0.015, 0.02, "+1.5"),  # far from the margin: one decimal as before
        (0.031, 0.02, "+3.1"),
        (0.0199, None, "+2.0"),  # no gate (compare without --fail-on-rise): one decimal
        (0.02, 0.02, "+2.0000 (at the margin)"),  # not below it: the rule is strict
    ],
)
def test_the_bound_is_printed_on_the_side_of_the_margin_it_is_on(
    upper: float, margin: float | None, shown: str
) -> None:
    assert bound_pts(upper, margin) == shown

"""An odds ratio as printed: three significant digits with their zeros, the digits that tell a
ratio near 1 from 1, and never zeros past them that tell nothing (``1.0000000`` for
1.000000001). Hand values, not our own output."""

from __future__ import annotations

import pytest

from judgeaudit.analysis.fmt import ratio_text


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (1.0, "1.00"),
        (2.13, "2.13"),
        (0.96, "0.960"),
        (796.0, "796"),
        (1.0031, "1.003"),  # a bound the headline counts as excluding 1
        (0.9996, "0.9996"),
        (1.00001, "1.00001"),  # six significant digits tell it from 1
        (0.99999, "0.99999"),
        (1.000000001, "1.00"),  # 1 to any digits shown: printed as 1 is
        (0.9999999999, "1.00"),
        (1.000004, "1.00"),  # 1.00000 at six digits
    ],
)
def test_an_odds_ratio_near_one_stops_where_it_is_one_as_shown(value: float, shown: str) -> None:
    assert ratio_text(value) == shown

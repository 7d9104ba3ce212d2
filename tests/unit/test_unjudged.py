"""When most judge orders have no verdict, the headline's misselection count says it covers the
judged orders only; when none has one, it gives no count (a missing verdict is a tie, so a judge
that never answers would otherwise read "0 misselected")."""

from __future__ import annotations

from typing import Any

from judgeaudit.analysis.verdicts import MOSTLY_UNJUDGED, misselected_text, unjudged


def health(missing: int, orders: int) -> dict[str, Any]:
    return {
        "orders": orders,
        "no_verdict_orders": missing,
        "no_verdict_rate": missing / orders if orders else None,
    }


def test_a_judged_run_keeps_its_plain_count() -> None:
    assert misselected_text(7, health(49, 100)) == "7 misselected"
    assert misselected_text(0, health(0, 0)) == "0 misselected"  # recorded: no judge call
    assert unjudged(health(49, 100)) is None and unjudged(health(0, 0)) is None


def test_from_half_the_orders_unjudged_the_count_covers_the_judged_ones_only() -> None:
    assert MOSTLY_UNJUDGED == 0.5
    assert misselected_text(3, health(50, 100)) == (
        "3 misselected in the judged orders only (no verdict on 50 of 100 orders)"
    )
    note = unjudged(health(50, 100))
    assert note is not None and "describe only the judged orders" in note


def test_the_close_gives_the_share_with_its_interval_and_method() -> None:
    """The run's closing warning printed a bare share; it carries the report's interval and
    names its method (the interval is the report's: here given, 0.40-0.60)."""
    note = unjudged({**health(50, 100), "no_verdict_rate_ci": [0.4, 0.6]})
    assert note == (
        "the judge gave no verdict on 50.0% of orders (50/100; 95% CI [40.0, 60.0], Wilson with a "
        "task design effect): the misselection figures describe only the judged orders"
    )


def test_no_order_judged_gives_no_count() -> None:
    text = misselected_text(0, health(1260, 1260))
    assert "0 misselected" not in text and text.startswith("misselection not measured")
    note = unjudged(health(1260, 1260), "out/x")
    assert note is not None and "nothing was judged" in note and "report out/x" in note

"""The fast verdict predicate and the checks that name what is wrong give the same answers:
both import paths store the same verdicts, and refuse the same ones."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

from judgeaudit.audit.inputs.verdict_rules import clean_verdict, parse_verdicts
from judgeaudit.audit.tasks.errors import TaskError

ORDERS: list[Any] = ["AB", "BA", "ab", None, 1]
WINNERS: list[Any] = ["A", "B", "tie", "a", None, True]
SCORES: list[Any] = [None, 0, 5, 2.5, 5.5, -1, True, math.nan, math.inf, "3"]
RAW: list[Any] = [None, "", "A wins", 3]
REASONS: list[Any] = [None, [], ["short"], "short", [1], ["a", None]]


def strict(item: dict[str, Any]) -> dict[str, Any] | None:
    try:
        (verdict,) = parse_verdicts([item], "f")
    except TaskError:
        return None
    return verdict


def test_both_agree_on_every_combination_of_field_values() -> None:
    checked = 0
    for order, winner, score, raw, reasons in itertools.product(
        ORDERS, WINNERS, SCORES, RAW, REASONS
    ):
        item = {"order": order, "winner": winner, "score_a": score, "raw_output": raw}
        item["reasons"] = reasons
        assert clean_verdict(item) == strict(item), item
        checked += 1
    assert checked == 5 * 6 * 10 * 4 * 6


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"order": "AB", "winner": "tie"}, {"score_a": None, "reasons": []}),
        ({"order": "BA", "winner": "A", "score_a": 4, "score_b": 0.5}, {"score_a": 4.0}),
        ({"order": "AB", "winner": "B", "score_b": True}, None),
        ({"order": "AB", "winner": "B", "score_b": 5.000001}, None),
        ({"order": "AB", "winner": "B", "reasons": ["x", 2]}, None),
    ],
)
def test_hand_checked_verdicts(item: dict[str, Any], expected: dict[str, Any] | None) -> None:
    body = clean_verdict(item)
    if expected is None:
        assert body is None
        with pytest.raises(TaskError):
            parse_verdicts([item], "f")
    else:
        assert body is not None and expected.items() <= body.items()


def test_an_order_given_twice_is_refused_though_each_line_is_clean() -> None:
    item = {"order": "AB", "winner": "A"}
    with pytest.raises(TaskError, match=r"f\[1\]\.order: AB given twice"):
        parse_verdicts([item, dict(item)], "f")

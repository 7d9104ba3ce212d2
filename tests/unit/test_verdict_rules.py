"""The fast verdict predicate and the checks that name what is wrong give the same answers:
both import paths store the same verdicts, and refuse the same ones, a verdict without a winner
(``"winner": null``, optional ``parse_error``) among them."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

from judgeaudit.audit.inputs.verdict_rules import (
    NO_VERDICT,
    clean_verdict,
    contradiction,
    parse_verdicts,
    recorded_error,
)
from judgeaudit.audit.tasks.errors import TaskError

ORDERS: list[Any] = ["AB", "BA", "ab", None, 1]
WINNERS: list[Any] = ["A", "B", "tie", "a", None, True]
SCORES: list[Any] = [None, 0, 5, 2.5, 5.5, -1, True, math.nan, math.inf, "3"]
RAW: list[Any] = [None, "", "A wins", 3]
REASONS: list[Any] = [None, [], ["short"], "short", [1], ["a", None]]
ABSENT = object()  # the key left out
ERRORS: list[Any] = [None, "no JSON object found", "", " ", 3, ABSENT]


def strict(item: dict[str, Any]) -> dict[str, Any] | None:
    try:
        (verdict,) = parse_verdicts([item], "f")
    except TaskError:
        return None
    return verdict


def test_both_agree_on_every_combination_of_field_values() -> None:
    checked = 0
    for order, winner, score, raw, reasons, error in itertools.product(
        ORDERS, [*WINNERS, ABSENT], SCORES, RAW, REASONS, ERRORS
    ):
        item = {"order": order, "winner": winner, "score_a": score, "raw_output": raw}
        item["reasons"] = reasons
        item["parse_error"] = error
        item = {key: value for key, value in item.items() if value is not ABSENT}
        assert clean_verdict(item) == strict(item), item
        checked += 1
    assert checked == 5 * 7 * 10 * 4 * 6 * 6


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"order": "AB", "winner": "tie"}, {"score_a": None, "reasons": []}),
        ({"order": "BA", "winner": "A", "score_a": 4, "score_b": 0.5}, {"score_a": 4.0}),
        ({"order": "AB", "winner": "B", "score_b": True}, None),
        ({"order": "AB", "winner": "B", "score_b": 5.000001}, None),
        ({"order": "AB", "winner": "B", "reasons": ["x", 2]}, None),
        # no verdict: why (when the log says), nothing judged
        ({"order": "AB", "winner": None}, {"winner": None, "parse_error": None, "reasons": []}),
        ({"order": "BA", "winner": None, "parse_error": "bad JSON", "raw_output": "{oops",
          "reasons": [], "score_b": None}, {"parse_error": "bad JSON", "raw_output": "{oops"}),
        ({"order": "AB"}, None),  # a winner left out is a mistake, not a null
        ({"order": "AB", "winner": None, "score_a": 0}, None),
        ({"order": "AB", "winner": None, "reasons": ["why"]}, None),
        ({"order": "AB", "winner": "A", "parse_error": "bad JSON"}, None),
        ({"order": "AB", "winner": "A", "parse_error": None}, {"winner": "A"}),
        ({"order": "AB", "winner": None, "parse_error": " "}, None),
    ],
)  # fmt: skip
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


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"order": "AB", "winner": "A", "parse_error": "x"},
         'f[0].parse_error: given with winner "A"; a parse_error says the reply gave no verdict: '
         'give "winner": null, or drop parse_error'),
        ({"order": "AB", "winner": None, "score_b": 3},
         "f[0].score_b: given with winner null; a reply that gave no verdict has no scores"),
        ({"order": "AB", "winner": None, "reasons": ["r"]},
         "f[0].reasons: given with winner null; a reply that gave no verdict has no reasons"),
        ({"order": "AB", "winner": None, "parse_error": ""},
         "f[0].parse_error: must be a non-empty string (what went wrong), got an empty one"),
        # the value given is named, as every other field's message does (a new user)
        ({"order": "AB", "winner": 5},
         'f[0].winner: must be "A", "B" or "tie" (null: no verdict), got 5'),
        ({"order": "AB"}, 'f[0].winner: missing; give "A", "B", "tie", or null when'),
        ({"order": "AB", "winner": "X"}, 'f[0].winner: must be "A", "B" or "tie" (null: no'),
    ],
)  # fmt: skip
def test_each_refusal_names_the_field_and_what_to_do(item: dict[str, Any], message: str) -> None:
    with pytest.raises(TaskError) as refused:
        parse_verdicts([item], "f")
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("verdict", "expected"),
    [
        ({"winner": "A", "score_a": 1.0, "score_b": 4.0}, "winner A but score_a 1 < score_b 4"),
        ({"winner": "B", "score_a": 4.5, "score_b": 0.0}, "winner B but score_a 4.5 > score_b 0"),
        ({"winner": "A", "score_a": 2.0, "score_b": 2.0}, None),  # equal: the judge broke a tie
        ({"winner": "tie", "score_a": 1.0, "score_b": 4.0}, None),  # declined to pick
        ({"winner": "A", "score_a": None, "score_b": 4.0}, None),
        ({"winner": None, "score_a": None, "score_b": None}, None),
        ({"winner": "B", "score_a": 1.0, "score_b": 4.0}, None),
    ],
)
def test_a_winner_contradicts_its_scores_only_when_it_picked_the_side_it_scored_lower(
    verdict: dict[str, Any], expected: str | None
) -> None:
    assert contradiction(verdict) == expected


def test_a_verdict_without_a_winner_is_stored_as_a_reply_that_did_not_parse() -> None:
    told = clean_verdict({"order": "AB", "winner": None, "parse_error": "no JSON object found"})
    untold = clean_verdict({"order": "AB", "winner": None})
    judged = clean_verdict({"order": "AB", "winner": "tie"})
    assert told is not None and untold is not None and judged is not None
    assert recorded_error(told) == "no JSON object found"
    assert recorded_error(untold) == NO_VERDICT
    assert recorded_error(judged) is None and "parse_error" not in judged  # bytes as before

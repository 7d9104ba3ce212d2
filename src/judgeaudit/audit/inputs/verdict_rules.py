"""Recorded judge verdicts, as a pair file or a ``recorded-jsonl`` line gives them: one per
order, the winner in the order's own A/B terms, or ``"winner": null`` (with an optional
``parse_error``) for an order whose reply gave no verdict, stored as a live judge's reply that did
not parse. :func:`clean_verdict` is the one fast predicate both import paths (the exact
:mod:`judgeaudit.rollouts.recorded` and the bulk :mod:`judgeaudit.rollouts.recorded_bulk`) run
first; :func:`parse_verdicts` then names what is wrong. ``tests/unit/test_verdict_rules.py``
holds the two to the same answers. :func:`contradiction` says when a winner contradicts its
own scores (kept, and counted by the import)."""

from __future__ import annotations

import json
import math
from typing import Any

from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.units.verdict_parse import WINNERS, Order
from judgeaudit.score_scale import SATISFIED_AT, SCORE_MAX
from judgeaudit.validate import json_type, number, short, string, unknown_field

VERDICT_KEYS = ("order", "winner", "score_a", "score_b", "raw_output", "reasons")
#: The key a verdict with ``"winner": null`` adds to :data:`VERDICT_KEYS` (after them): why its
#: reply gave no verdict, or null when the log does not say.
PARSE_ERROR = "parse_error"
_VERDICT_KEYS = frozenset((*VERDICT_KEYS, PARSE_ERROR))
#: ``judge_logs.parse_error`` of a verdict recorded with ``"winner": null`` and no parse_error.
NO_VERDICT = "no verdict recorded (winner null; the log gave no parse_error)"


def clean_verdict(item: dict[str, Any]) -> dict[str, Any] | None:
    """The stored body of a verdict whose fields (``order``, ``winner``, the scores,
    ``raw_output``, ``reasons``, ``parse_error``) all hold as :func:`parse_verdicts` checks
    them, else None: the one predicate both import paths run first (a million clean lines pay
    no message-building), before the checks that name what is wrong. Other keys are the
    caller's to check."""
    get = item.get
    order, winner = get("order"), get("winner")
    reasons, raw_output, error = get("reasons"), get("raw_output"), get(PARSE_ERROR)
    score_a, score_b = _clean_score(get("score_a")), _clean_score(get("score_b"))
    if (
        order not in ORDERS
        or score_a is False
        or score_b is False
        or not (raw_output is None or type(raw_output) is str)
        or not (reasons is None or (type(reasons) is list and all(type(r) is str for r in reasons)))
        or not (error is None or (type(error) is str and error.strip()))
    ):
        return None
    if winner is None:  # no verdict: nothing but the reply and why it gave none
        if "winner" not in item or score_a is not None or score_b is not None or reasons:
            return None
    elif winner not in WINNERS or error is not None:
        return None
    body = {
        "order": order,
        "winner": winner,
        "score_a": score_a,
        "score_b": score_b,
        "raw_output": raw_output,
        "reasons": reasons or [],
    }
    if winner is None:
        body[PARSE_ERROR] = error
    return body


def recorded_error(verdict: dict[str, Any]) -> str | None:
    """``judge_logs.parse_error`` of a checked verdict: None when it has a winner, else why its
    reply gave none (:data:`NO_VERDICT` when the log does not say)."""
    if verdict["winner"] is not None:
        return None
    return verdict.get(PARSE_ERROR) or NO_VERDICT


def contradiction(verdict: dict[str, Any]) -> str | None:
    """How a checked verdict's winner contradicts its own scores (it picked the side it scored
    lower), or None: kept as recorded, since the winner was the reward, and counted by the
    import. A tie, equal scores or a missing score contradict nothing."""
    winner, score_a, score_b = verdict["winner"], verdict["score_a"], verdict["score_b"]
    if score_a is None or score_b is None:
        return None
    if (winner == "A" and score_a < score_b) or (winner == "B" and score_b < score_a):
        sign = "<" if score_a < score_b else ">"
        return f"winner {winner} but score_a {score_a:g} {sign} score_b {score_b:g}"
    return None


ORDERS: tuple[Order, ...] = ("AB", "BA")

#: Scores needed before :func:`low_scale` speaks: a few low scores are a 0-5 judge's own.
LOW_SCALE_SCORES = 20


def scores_seen(verdict: dict[str, Any]) -> tuple[int, float | None]:
    """A checked verdict's number of scores given and its highest (None: none), what
    :func:`low_scale` counts over a file."""
    a, b = verdict["score_a"], verdict["score_b"]
    return (a is not None) + (b is not None), a if b is None else b if a is None else max(a, b)


def low_scale(scores: int, top: float | None) -> str | None:
    """The warning (exit 0) when every one of at least :data:`LOW_SCALE_SCORES` recorded scores
    is at most 1, as a judge scoring 0-1 (probabilities) gives: no side can reach
    :data:`SATISFIED_AT`, so "failed although judge satisfied" is n/a; None otherwise."""
    if scores < LOW_SCALE_SCORES or top is None or top > 1:
        return None
    return (
        f"every one of the {scores} recorded scores is at most 1 (highest {top:g}), but the "
        f"audit's scale is 0-{SCORE_MAX:g} and a side counts as the judge satisfied at "
        f"{SATISFIED_AT:g} or more: if your judge scores 0-1, multiply its scores by "
        f"{SCORE_MAX:g} before importing, or 'failed although judge satisfied' stays n/a"
    )


def _clean_score(value: Any) -> float | bool | None:
    """A score as :func:`~judgeaudit.validate.number` takes it (0 to :data:`SCORE_MAX`, finite, no boolean);
    False when it is not one."""
    if value is None:
        return None
    kind = type(value)
    if ((kind is float and math.isfinite(value)) or kind is int) and 0 <= value <= SCORE_MAX:
        return float(value)
    return False


def parse_verdicts(raw: Any, where: str) -> list[dict[str, Any]]:
    """Recorded judge verdicts: one per order, winner in the order's own A/B terms."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise TaskError(f"{where}: must be a list of {{order, winner, score_a, score_b}}")
    out: list[dict[str, Any]] = []
    orders: set[str] = set()
    for index, item in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(item, dict):
            raise TaskError(f"{at}: must be an object, got {json_type(item)}")
        if not item.keys() <= _VERDICT_KEYS:
            key = next(key for key in item if key not in _VERDICT_KEYS)
            raise TaskError(unknown_field(at, key, (*VERDICT_KEYS, PARSE_ERROR), joiner="."))
        order = item.get("order")
        clean = clean_verdict(item)
        if clean is not None and order not in orders:
            orders.add(clean["order"])
            out.append(clean)
            continue
        if order not in ORDERS:
            raise TaskError(f'{at}.order: must be "AB" or "BA", got {json.dumps(order)}')
        if order in orders:
            raise TaskError(f"{at}.order: {order} given twice; one verdict per order")
        orders.add(order)
        if "winner" not in item:
            raise TaskError(
                f'{at}.winner: missing; give "A", "B", "tie", or null when the judge\'s reply '
                "gave no verdict"
            )
        winner = item["winner"]
        if winner is not None and winner not in WINNERS:
            raise TaskError(
                f'{at}.winner: must be "A", "B" or "tie" (null: no verdict), got {short(winner)}'
            )
        verdict: dict[str, Any] = {"order": order, "winner": winner}
        for key in ("score_a", "score_b"):
            value = item.get(key)
            verdict[key] = (
                None if value is None else number(value, f"{at}.{key}", 0, SCORE_MAX, TaskError)
            )
        raw_output = item.get("raw_output")
        verdict["raw_output"] = (
            None
            if raw_output is None
            else string(raw_output, f"{at}.raw_output", TaskError, empty=True)
        )
        reasons = item.get("reasons")
        if reasons is not None and not (
            isinstance(reasons, list) and all(isinstance(r, str) for r in reasons)
        ):
            raise TaskError(f"{at}.reasons: must be a list of strings")
        verdict["reasons"] = reasons or []
        error = item.get(PARSE_ERROR)
        if error is not None and not (isinstance(error, str) and error.strip()):
            raise TaskError(
                f"{at}.{PARSE_ERROR}: must be a non-empty string (what went wrong), got "
                f"{json_type(error) if not isinstance(error, str) else 'an empty one'}; or leave "
                "it out"
            )
        if winner is not None:
            if error is not None:
                raise TaskError(
                    f"{at}.{PARSE_ERROR}: given with winner {json.dumps(winner)}; a parse_error "
                    'says the reply gave no verdict: give "winner": null, or drop parse_error'
                )
        else:
            _nothing_judged(verdict, at)
            verdict[PARSE_ERROR] = error
        out.append(verdict)
    return out


def line_verdict(body: dict[str, Any], where: str) -> dict[str, Any]:
    """One log line's verdict, checked as :func:`parse_verdicts` checks a list item but named at
    its own line (``file:3: winner: …``, not the list item ``file:3[0].winner``)."""
    try:
        (verdict,) = parse_verdicts([body], where)
    except TaskError as exc:
        raise TaskError(str(exc).replace(f"{where}[0].", f"{where}: ", 1)) from None
    return verdict


def _nothing_judged(verdict: dict[str, Any], at: str) -> None:
    """A verdict with ``"winner": null`` holds no scores or reasons: they would be judgements of
    a reply that gave none (refused rather than dropped without a word)."""
    for key in ("score_a", "score_b", "reasons"):
        if verdict[key] is not None and verdict[key] != []:
            raise TaskError(
                f"{at}.{key}: given with winner null; a reply that gave no verdict has no "
                f"{'reasons' if key == 'reasons' else 'scores'}: leave it out, or give the winner"
            )

"""Recorded judge verdicts, as a pair file or a ``recorded-jsonl`` line gives them: one per
order, the winner in the order's own A/B terms. :func:`clean_verdict` is the one fast predicate
both import paths (the exact :mod:`judgeaudit.rollouts.recorded` and the bulk
:mod:`judgeaudit.rollouts.recorded_bulk`) run first; :func:`parse_verdicts` then names what is
wrong. ``tests/unit/test_verdict_rules.py`` holds the two to the same answers."""

from __future__ import annotations

import json
import math
from typing import Any

from judgeaudit.audit.tasks.errors import TaskError
from judgeaudit.audit.units.verdict_parse import WINNERS, Order
from judgeaudit.validate import json_type, number, string, unknown_field

VERDICT_KEYS = ("order", "winner", "score_a", "score_b", "raw_output", "reasons")
_VERDICT_KEYS = frozenset(VERDICT_KEYS)


def clean_verdict(item: dict[str, Any]) -> dict[str, Any] | None:
    """The stored body of a verdict whose fields (``order``, ``winner``, the scores,
    ``raw_output``, ``reasons``) all hold as :func:`parse_verdicts` checks them, else None: the
    one predicate both import paths run first (a million clean lines pay no message-building),
    before the checks that name what is wrong. Other keys are the caller's to check."""
    get = item.get
    order, winner = get("order"), get("winner")
    reasons, raw_output = get("reasons"), get("raw_output")
    score_a, score_b = _clean_score(get("score_a")), _clean_score(get("score_b"))
    if (
        order not in ORDERS
        or winner not in WINNERS
        or score_a is False
        or score_b is False
        or not (raw_output is None or type(raw_output) is str)
        or not (reasons is None or (type(reasons) is list and all(type(r) is str for r in reasons)))
    ):
        return None
    return {
        "order": order,
        "winner": winner,
        "score_a": score_a,
        "score_b": score_b,
        "raw_output": raw_output,
        "reasons": reasons or [],
    }


ORDERS: tuple[Order, ...] = ("AB", "BA")


def _clean_score(value: Any) -> float | bool | None:
    """A score as :func:`~judgeaudit.validate.number` takes it (0 to 5, finite, no boolean);
    False when it is not one."""
    if value is None:
        return None
    kind = type(value)
    if ((kind is float and math.isfinite(value)) or kind is int) and 0 <= value <= 5:
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
            raise TaskError(unknown_field(at, key, VERDICT_KEYS, joiner="."))
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
        winner = item.get("winner")
        if winner not in WINNERS:
            raise TaskError(f'{at}.winner: must be "A", "B" or "tie"')
        verdict: dict[str, Any] = {"order": order, "winner": winner}
        for key in ("score_a", "score_b"):
            value = item.get(key)
            verdict[key] = None if value is None else number(value, f"{at}.{key}", 0, 5, TaskError)
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
        out.append(verdict)
    return out

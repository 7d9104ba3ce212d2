"""Strict JSON numbers: what Python's decoder would accept and every reader here refuses (NaN,
Infinity, a float that overflows, an integer too long to parse), and, on that error path only,
the field that held it (so the one line names it). :mod:`judgeaudit.validate` reads with it."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator
from typing import Any

from judgeaudit import safeio

MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300


def walk(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    """Each leaf of a parsed document with its dotted path (``verdicts[0].score_a``)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from walk(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from walk(item, f"{where}[{index}]")
    else:
        yield where, value


def _no_constant(name: str) -> Any:
    raise JsonValueError(f"{name} is not JSON; write null or a number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonValueError(
            f"{text} is too large for a number; write a smaller number (a string where the "
            "field is an id)"
        )
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JsonValueError(
            f"an integer with {len(text)} digits is too long; write a shorter number (a string "
            "where the field is an id)"
        )
    return int(text)


class JsonValueError(ValueError):
    """A JSON value Python could parse but we refuse (NaN, Infinity, 1e400, huge integers)."""


class _Refused:
    """Stands for a refused value in :func:`refused_field`'s lenient parse."""


def refused_field(text: str) -> str | None:
    """The dotted path of the first value the strict decoder refuses in ``text`` (parsed again,
    leniently, only on that error path), so the message names the field (``score_a``)."""

    def refused(_text: str) -> _Refused:
        return _Refused()

    def number(kind: Callable[[str], Any]) -> Callable[[str], Any]:
        def parse(value: str) -> Any:
            try:
                return kind(value)
            except JsonValueError:
                return _Refused()

        return parse

    lenient = json.JSONDecoder(
        parse_constant=refused, parse_float=number(_finite_float), parse_int=number(_bounded_int)
    )
    try:
        data = safeio.parse_json(text, lenient)
    except ValueError:
        return None
    return next((path for path, value in walk(data, "") if isinstance(value, _Refused)), None)


#: One decoder for every line (built once: per call it was a tenth of the parsing time).
STRICT = json.JSONDecoder(
    parse_constant=_no_constant, parse_float=_finite_float, parse_int=_bounded_int
)

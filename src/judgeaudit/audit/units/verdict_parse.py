"""Parsing judge output that may come wrapped in code fences or prose, in the template's
declared ``output`` mode: ``json`` (winner, scores, reasons), ``scores`` (two scores; the higher
wins) or ``winner`` (a winner only). Also the swap rule (:func:`swap_rule`) that makes a pair's
verdict of its two orders', here because both a live judge and a recorded log apply it and this
module is light (the recorded import must not load the LLM client to reach it)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from judgeaudit.safeio import json_problem
from judgeaudit.score_scale import SCORE_MAX

FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
#: A judge's preference (which side it picked); a pair's ``judge_pref`` combines both orders.
Pref = Literal["A", "B", "tie"]
#: The order the two sides were shown in (AB: agent A first).
Order = Literal["AB", "BA"]
WINNERS: tuple[Pref, ...] = ("A", "B", "tie")
WINNER_WORDS: dict[str, Pref] = {w.lower(): w for w in WINNERS}  # any case
BARE_WINNER_RE = re.compile(r"^\W*(?:winner\W*)?(A|B|tie)\W*$", re.IGNORECASE)
LABELLED_SCORE_RE = re.compile(r"score_([ab])\W+(-?\d+(?:\.\d+)?)", re.IGNORECASE)

#: A preference seen from the other order (A and B swapped).
FLIP: dict[Pref, Pref] = {"A": "B", "B": "A", "tie": "tie"}


def swap_rule(ab: Pref | None, ba: Pref | None) -> tuple[Pref, Pref, Pref, bool]:
    """The swap rule, once, for a live judge and a recorded log alike: (pref_ab, pref_ba,
    judge_pref, consistent) of a pair judged in both orders, each order's preference in the
    pair's terms or None when its reply gave no verdict. An order without a verdict counts as a
    tie and never agrees with anything (two failed orders are not a consistent tie); the pair's
    verdict is the orders' common winner, else a tie."""
    pref_ab, pref_ba = ab or "tie", ba or "tie"
    judge_pref = pref_ab if pref_ab == pref_ba else "tie"
    return pref_ab, pref_ba, judge_pref, ab is not None and ba is not None and ab == ba


@dataclass(frozen=True)
class Verdict:
    winner: Pref
    score_a: float | None
    score_b: float | None
    reasons: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "score_a": self.score_a,
            "score_b": self.score_b,
            "reasons": self.reasons,
        }


class VerdictError(ValueError):
    """The output holds no usable verdict; the message says why (stored as parse_error)."""


#: Decodes one JSON value from an offset (C speed; the brace scan below is the fallback).
_DECODER = json.JSONDecoder()


def _candidates(raw: str) -> Iterator[str]:
    """The texts that may hold a verdict, in order: fenced blocks, then the balanced ``{...}``
    from each ``{``. Lazy: a reply whose first candidate is the verdict is read no further."""
    for fenced in FENCE_RE.findall(raw):
        yield fenced.strip()
    start = raw.find("{")
    while start != -1:
        end = _object_end(raw, start)
        if end is not None:
            yield raw[start:end]
        start = raw.find("{", start + 1)


def _object_end(raw: str, start: int) -> int | None:
    """Where the object opened at ``start`` ends: valid JSON is measured by the decoder (its
    braces balance outside strings, so the scan would end at the same place); anything else
    by scanning for the matching brace (None when there is none). The scan used to end a
    string at an escaped quote, so a verdict quoting ``\\"{`` in a reason was not found."""
    try:
        return _DECODER.raw_decode(raw, start)[1]
    except json.JSONDecodeError:
        pass
    depth, in_str, escaped = 0, False, False
    for index in range(start, len(raw)):
        ch = raw[index]
        if in_str:  # an escaped quote does not end the string
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def parse_output(raw: str, mode: str = "json") -> Verdict:
    """The verdict in ``raw`` read the way the template declared (see module doc)."""
    if mode == "scores":
        return _parse_scores(raw)
    if mode == "winner":
        return _parse_winner(raw)
    return parse_verdict(raw)


def _parse_scores(raw: str) -> Verdict:
    problem = "no score_a and score_b found"
    for text in _candidates(raw):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            problem = f"invalid JSON: {json_problem(exc)}"
            continue
        if isinstance(data, dict) and "score_a" in data and "score_b" in data:
            return _from_scores(data.get("score_a"), data.get("score_b"), data.get("reasons"))
    labelled = dict((side.lower(), value) for side, value in LABELLED_SCORE_RE.findall(raw))
    if {"a", "b"} <= set(labelled):
        return _from_scores(labelled["a"], labelled["b"], None)
    raise VerdictError(problem)


def _from_scores(a: Any, b: Any, reasons: Any) -> Verdict:
    try:
        score_a, score_b = _score(a), _score(b)
    except ValueError as exc:
        raise VerdictError(str(exc)) from None
    if score_a is None or score_b is None:
        raise VerdictError("score_a and score_b must both be numbers")
    winner: Pref = "A" if score_a > score_b else "B" if score_b > score_a else "tie"
    return Verdict(winner, score_a, score_b, _reasons(reasons))


def _parse_winner(raw: str) -> Verdict:
    for text in _candidates(raw):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "winner" in data:
            winner = _winner(data["winner"])
            if winner is not None:
                return Verdict(winner, None, None, _reasons(data.get("reasons")))
    for line in raw.strip().splitlines()[:1] + raw.strip().splitlines()[-1:]:
        match = BARE_WINNER_RE.match(line.strip())
        if match:
            return Verdict(_winner(match.group(1)) or "tie", None, None, [])
    raise VerdictError("no winner (A, B or tie) found")


def _winner(value: Any) -> Pref | None:
    return WINNER_WORDS.get(str(value).strip().lower())


def _reasons(value: Any) -> list[str]:
    reasons = value or []
    if isinstance(reasons, str):
        reasons = [reasons]
    return [str(r) for r in reasons] if isinstance(reasons, list) else [str(reasons)]


def parse_verdict(raw: str) -> Verdict:
    """The first JSON object in ``raw`` that is a well-formed pairwise verdict."""
    problem = "no JSON object found"
    for text in _candidates(raw):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            problem = f"invalid JSON: {json_problem(exc)}"
            continue
        if not isinstance(data, dict) or "winner" not in data:
            problem = "JSON object has no 'winner'"
            continue
        winner = str(data["winner"]).strip()
        winner = {"a": "A", "b": "B", "tie": "tie", "TIE": "tie"}.get(winner.lower(), winner)
        if winner not in WINNERS:
            problem = f"winner {data['winner']!r} is not A, B or tie"
            continue
        try:
            score_a = _score(data.get("score_a"))
            score_b = _score(data.get("score_b"))
        except ValueError as exc:
            problem = str(exc)
            continue
        reasons = data.get("reasons") or []
        if isinstance(reasons, str):
            reasons = [reasons]
        return Verdict(winner, score_a, score_b, [str(r) for r in reasons])
    raise VerdictError(problem)


def _score(value: Any) -> float | None:
    if value is None:
        return None
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"score {value!r} is not a number") from None
    if not 0 <= score <= SCORE_MAX:
        raise ValueError(f"score {score} is outside 0-{SCORE_MAX:g}")
    return score


def verdict_json(verdict: dict[str, Any] | None) -> str | None:
    """A parsed verdict as stored in ``judge_logs.parsed_json`` (None when nothing parsed)."""
    return json.dumps(verdict, ensure_ascii=False) if verdict is not None else None


def parse_success(raw: str) -> int | None:
    """The LLM success check's ``{"success": true|false}`` as 1/0, or None if it gave none."""
    for text in _candidates(raw):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and isinstance(data.get("success"), bool | int):
            return int(bool(data["success"]))
    return None

"""Parsing judge output that may come wrapped in code fences or prose."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
WINNERS = ("A", "B", "tie")


@dataclass(frozen=True)
class Verdict:
    winner: str
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


def _candidates(raw: str) -> list[str]:
    out = [m.strip() for m in FENCE_RE.findall(raw)]
    start = raw.find("{")
    while start != -1:
        depth, in_str, escaped = 0, False, False
        for index in range(start, len(raw)):
            ch = raw[index]
            if in_str:
                escaped = ch == "\\" and not escaped
                if ch == '"' and not escaped:
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    out.append(raw[start : index + 1])
                    break
        start = raw.find("{", start + 1)
    return out


def parse_verdict(raw: str) -> Verdict:
    """The first JSON object in ``raw`` that is a well-formed pairwise verdict."""
    problem = "no JSON object found"
    for text in _candidates(raw):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            problem = f"invalid JSON: {exc.msg}"
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
    if not 0 <= score <= 5:
        raise ValueError(f"score {score} is outside 0-5")
    return score


def verdict_json(verdict: dict[str, Any] | None) -> str | None:
    """A parsed verdict as stored in ``judge_logs.parsed_json`` (None when nothing parsed)."""
    return json.dumps(verdict, ensure_ascii=False) if verdict is not None else None

"""Which rate ranks the judges: the one owner of the leaderboard's key, for the order, the
frontier (``*``) and the change printed beside the verdict against the best, and of the words
the CLI and the app say about it.

The key is the tie-aware rate ``(wrong + tie/2) / decisive`` (the report's,
``analysis/split.py``): a tie is never a misselection, so on misselection a judge that answers
"tie" to everything has 0.0%, ranked first, sat on the frontier and read ``worse (-6.5 pts)``
against the best while its tie-aware rate rose 37 points. Misselection breaks ties of the key.
No pandas here: the app imports it before its first ranking.
"""

from __future__ import annotations

from typing import Any

#: the leaderboard row's field that ranks (a ``{rate, ci_low, ci_high}``), and its names
RANK_KEY = "tie_aware"
RANK_NAME = "the tie-aware rate"
RANK_SHORT = "tie-aware"
RANK_FORMULA = "(wrong + tie/2) / decisive"


def rank_rate(row: dict[str, Any]) -> float | None:
    """A judge's rate on the key (None: not measured, or no decisive pair)."""
    rate = (row.get(RANK_KEY) or {}).get("rate")
    return None if rate is None else float(rate)


def order(row: dict[str, Any]) -> tuple[Any, ...]:
    """The leaderboard's sort key: measured first, then the key's rate (a judge without one
    after those with one), then misselection, then the run id."""
    rate = rank_rate(row)
    return (not row["measured"], rate is None, rate or 0.0,
            row["misselection"]["rate"] or 0.0, row["run_id"])  # fmt: skip


def beats(a: dict[str, Any], b: dict[str, Any], axis: str) -> bool:
    """``a`` has a lower-or-equal key rate and cost (``axis``) than ``b``, one strictly lower;
    a judge without a key rate beats none and is beaten by any judge with one."""
    ra, rb = rank_rate(a), rank_rate(b)
    if ra is None:
        return False
    low = rb is None or ra < rb
    ca, cb = a[axis] or 0.0, b[axis] or 0.0
    return (rb is None or ra <= rb) and ca <= cb and (low or ca < cb)


def frontier_rule(axis: str) -> str:
    return f"no other judge has lower-or-equal {RANK_SHORT} rate and {axis} with one strictly lower"


def versus(result: dict[str, Any]) -> dict[str, Any]:
    """The verdict against the best from ``compare``'s result (best as run A), with the key's
    paired change (``change``, ``ci_low``, ``ci_high``, ``upper``) and misselection's beside it;
    ``worse_on`` names the criteria that failed the gate."""
    overall = result["overall"]
    key = overall.get("tie_aware") or {}
    gate = result.get("gate") or {}
    return {
        "verdict": gate.get("verdict"),
        "worse_on": list(gate.get("worse_on") or []),
        "rate": RANK_KEY,
        "change": key.get("change"),
        "ci_low": key.get("ci_low"),
        "ci_high": key.get("ci_high"),
        "upper": key.get("upper"),
        "misselection": {k: overall.get(k) for k in ("change", "ci_low", "ci_high", "upper")},
        "needed_pairs": (overall.get("needed") or {}).get("pairs"),
    }


def versus_cell(vs: dict[str, Any] | None) -> str:
    """``best``; else the verdict and the change of the rate it came from: the key's
    (``inconclusive (+1.9 pts)``), or misselection's when the gate failed on it alone
    (``worse (missel. +3.1 pts)``)."""
    if vs is None:
        return "best"
    if vs["worse_on"] == ["misselection"]:
        change, named = vs["misselection"]["change"], "missel. "
    else:
        change, named = vs["change"], ""
    shown = "n/a" if change is None else f"{change * 100:+.1f} pts"
    return f"{vs['verdict']} ({named}{shown})"

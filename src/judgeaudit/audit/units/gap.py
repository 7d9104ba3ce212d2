"""The one gap definition and the one bucketing: every reader (engine, report, TUI, CSV) uses it.

A gap is ``|x_a - x_b|`` of the declared source's two columns, rounded to GAP_DECIMALS by
``floor(d * 10**6 + 0.5) / 10**6`` — written so that Python, numpy and SQLite evaluate the
same IEEE-754 operations in the same order and so give the same double (SQLite's ``ROUND``
and Python's ``round`` use different decimal conversions and can disagree on a half-way
digit). |0.45 - 0.15| is 0.30000000000000004 unrounded and 0.3 here, so it lands in
(0.15, 0.3] everywhere. A bucket is right-closed, as ``pd.cut`` cuts: (lo, hi].
Lives in ``audit/units`` because the engine stores ``reward_gap`` and may not import analysis.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

from judgeaudit.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

GapSource = Literal["capability", "judge", "external"]
#: Gaps are rounded to this many decimals (scores and rates have fewer).
GAP_DECIMALS = 6
_SCALE = 10.0**GAP_DECIMALS
#: The two columns of ``audit_pairs`` each source subtracts.
GAP_COLUMNS: dict[str, tuple[str, str]] = {
    "capability": ("capability_a", "capability_b"),
    "judge": ("judge_score_a", "judge_score_b"),
    "external": ("reward_a", "reward_b"),
}


#: Default bucket edges per source (labels near, small, medium, large).
DEFAULT_BINS: dict[str, list[float]] = {
    "capability": [-0.01, 0.15, 0.3, 0.5, 1.0],
    "judge": [-0.01, 0.2, 0.5, 1.0, 5.0],
    # Rewards on a 0-1 scale (tau-bench style 0/1): a full 0-vs-1 gap is "large", never "medium".
    "external": [-0.01, 0.15, 0.3, 0.5, 1.0],
}


def default_bins(source: str, low: float | None = None, high: float | None = None) -> list[float]:
    """Default edges; external rewards spanning more than 1 (``high - low``) get the 0-1 edges
    scaled to their span."""
    bins = DEFAULT_BINS[source]
    span = float(high - low) if low is not None and high is not None else 0.0
    if source == "external" and span > 1.0:
        return [bins[0], *(round(edge * span, GAP_DECIMALS) for edge in bins[1:])]
    return list(bins)


class GapSourceError(InputError):
    """An unknown gap source, or one that cannot measure a gap on this data (exit 2)."""


def unfit(
    source: str, binary_rewards: bool, one_agent: bool, no_rewards: bool = False
) -> str | None:
    """Why a gap source would invert the claim on this data (and which source fits), or None.

    ``external`` on 0/1 rewards buckets by the outcome itself: every decisive pair is "large";
    ``external`` without any reward puts no pair in a bucket (every figure n/a, exit 0 before).
    ``capability`` on pairs of one agent's trials is 0 by construction: every pair "near".
    """
    fits = "judge" if one_agent else "capability (agents' success rates) or judge"
    if source == "external" and no_rewards:
        return (
            "no pair has a reward (reward_a/reward_b are empty), so no pair has an external gap "
            f"and every bucket would be empty; use {fits}, or import pairs with rewards"
        )
    if source == "external" and binary_rewards:
        return (
            "the rewards are 0/1, so the external gap is the outcome itself (every decisive "
            f"pair would be 'large'); use {fits}"
        )
    if source == "capability" and one_agent:
        return (
            "every pair is two trials of one agent, so the capability gap is 0 by construction "
            "(every pair would be 'near'); use judge, or external with graded rewards"
        )
    return None


def columns(source: str) -> tuple[str, str]:
    if source not in GAP_COLUMNS:
        raise GapSourceError(f"--gap-source {source!r}: use capability, judge or external")
    return GAP_COLUMNS[source]


def gap(a: float | None, b: float | None) -> float | None:
    """The gap of two values (None when either is missing)."""
    if a is None or b is None:
        return None
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return None
    return math.floor(abs(a - b) * _SCALE + 0.5) / _SCALE


def gap_sql(source: str, prefix: str = "", *, floor: bool = False) -> str:
    """The same gap as a SQL expression over ``audit_pairs`` (NULL when either column is).

    SQLite truncates with ``CAST(... AS INTEGER)``; ``floor=True`` writes ``FLOOR`` for DuckDB
    (whose integer cast rounds) and Spark, with double literals (``1000000.0`` is a DECIMAL
    there). The argument is never negative, so both are the floor of the same double."""
    a, b = columns(source)
    diff = f"ABS({prefix}{a} - {prefix}{b})"
    if floor:
        scale = f"1e{GAP_DECIMALS}"
        return f"(FLOOR({diff} * {scale} + 0.5) / {scale})"
    return f"(CAST({diff} * {_SCALE!r} + 0.5 AS INTEGER) / {_SCALE!r})"


def gap_series(frame: pd.DataFrame, source: str) -> pd.Series:
    """The same gap over a pandas frame of ``audit_pairs`` rows (NaN when either is missing)."""
    import numpy as np
    import pandas as pd

    a, b = columns(source)
    diff = (frame[a].astype(float) - frame[b].astype(float)).abs()
    return pd.Series(np.floor(diff * _SCALE + 0.5) / _SCALE, index=frame.index, dtype=float)


def bucket_of(value: float | None, bins: list[float]) -> int | None:
    """The index of the right-closed bucket (lo, hi] holding ``value``; None outside or missing."""
    if value is None or math.isnan(value):
        return None
    for index in range(len(bins) - 1):
        if bins[index] < value <= bins[index + 1]:
            return index
    return None


def bucket_arms(gap_expr: str, bins: list[float]) -> tuple[list[str], list[float]]:
    """``WHEN`` arms giving :func:`bucket_of` in SQL, and their edges as parameters."""
    arms, edges = [], []
    for index in range(len(bins) - 1):
        arms.append(f"WHEN {gap_expr} > ? AND {gap_expr} <= ? THEN {index}")
        edges += [bins[index], bins[index + 1]]
    return arms, edges


def bucket_case(gap_expr: str, bins: list[float]) -> tuple[str, list[float]]:
    """A CASE giving each row's bucket index, NULL outside the edges (or without a gap)."""
    arms, edges = bucket_arms(gap_expr, bins)
    return f"CASE {' '.join(arms)} END", edges


def in_bucket_sql(gap_expr: str) -> str:
    """``gap in (lo, hi]`` with two parameters: the TUI's drill-down into one bucket."""
    return f"({gap_expr} > ? AND {gap_expr} <= ?)"


def outside_sql(gap_expr: str) -> str:
    """No bucket holds the row: no gap, at or below the first edge, above the last (2 params)."""
    return f"({gap_expr} IS NULL OR {gap_expr} <= ? OR {gap_expr} > ?)"


def bucket_series(values: pd.Series, bins: list[float], labels: list[str]) -> pd.Series:
    """:func:`bucket_of` over a series, as labelled categories (``pd.cut``, right-closed)."""
    import pandas as pd

    return pd.cut(values, bins=bins, labels=labels, right=True)

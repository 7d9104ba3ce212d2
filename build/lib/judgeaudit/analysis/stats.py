"""Small, exact statistics used by every report: Wilson intervals, Newcombe differences, kappa."""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float | None, float | None]:
    """95% Wilson score interval for a proportion; (None, None) when n is 0."""
    if n <= 0:
        return None, None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_diff(
    k1: int, n1: int, k2: int, n2: int
) -> tuple[float | None, float | None, float | None]:
    """Difference p2 - p1 with Newcombe's hybrid score interval (method 10)."""
    if n1 <= 0 or n2 <= 0:
        return None, None, None
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    assert l1 is not None and u1 is not None and l2 is not None and u2 is not None
    diff = p2 - p1
    low = diff - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = diff + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return diff, low, high


def cohen_kappa(a: Sequence[object], b: Sequence[object]) -> float | None:
    """Cohen's kappa for two raters; 1.0 when both agree perfectly on a single category."""
    if len(a) != len(b) or not a:
        return None
    n = len(a)
    categories = sorted(set(a) | set(b), key=str)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    expected = sum((list(a).count(c) / n) * (list(b).count(c) / n) for c in categories)
    if expected >= 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1 - expected)


def confusion(a: Sequence[object], b: Sequence[object]) -> dict[str, dict[str, int]]:
    categories = sorted(set(a) | set(b), key=str)
    table = {str(x): {str(y): 0 for y in categories} for x in categories}
    for x, y in zip(a, b, strict=True):
        table[str(x)][str(y)] += 1
    return table

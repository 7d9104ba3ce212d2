"""Position bias and swap consistency, each with the report's task-clustered interval, in SQL
every engine reads alike (:mod:`judgeaudit.analysis.clustered`).

- **Swap consistency**: of the pairs judged in both orders (``pref_ba`` present), those whose
  stored ``consistent`` flag says the two orders agreed (an unparsed order agrees with nothing).
  One owner for every place it has an interval: per judge model (position bias), per task type
  and per (agent pair, judge model) (the breakdowns), and over the whole run (the trend,
  :func:`consistency_parts`). Every
  writer stores ``consistent`` exactly when ``pref_ba`` is present, so the rate here is the
  aggregation's ``SUM(consistent) / COUNT(consistent)``.
- **Tie/tie** beside it: a pair whose two orders both said "tie" agreed, so it counts as
  consistent, yet the judge decided nothing (an always-tie judge is 100% consistent). Each
  row says how many consistent pairs were tie/tie (``both_tie``, its share of the pairs judged
  in both orders) and the consistency among the pairs where at least one order named a side
  (``decided_consistency_rate``, null over no such pair: not measured). :data:`AGREEMENT`.
- **First position**: its win rate over decided orders, and of the real order disagreements
  (both orders decided, opposite sides) the share it won; each tested against 50%.
"""

from __future__ import annotations

from typing import Any

from judgeaudit.analysis.clustered import PAIRS, Sums, as_int, grouped_parts, interval
from judgeaudit.analysis.engines.dialect import Pairs
from judgeaudit.analysis.report_types import Agreement, Clustered, FirstPosition
from judgeaudit.analysis.stats import mcnemar_exact

#: Swap consistency per pair: both orders agreed, over pairs judged in both orders.
CONSISTENT = as_int("COALESCE(consistent, 0) = 1")
JUDGED_BOTH = as_int("pref_ba IS NOT NULL")
#: Consistent because both orders said "tie" (an unparsed order stores a tie but is never
#: consistent, so it is not here), and among the pairs judged in both orders where at least
#: one order named a side, those whose orders agreed on it.
BOTH_TIE = as_int("COALESCE(consistent, 0) = 1 AND COALESCE(pref_ab, '') = 'tie'")
NAMED = "COALESCE(pref_ab, '') IN ('A', 'B') OR COALESCE(pref_ba, '') IN ('A', 'B')"
DECIDED_BOTH = as_int(f"pref_ba IS NOT NULL AND ({NAMED})")
DECIDED_AGREED = as_int("COALESCE(consistent, 0) = 1 AND COALESCE(pref_ab, '') IN ('A', 'B')")
#: The parts of :func:`agreement`, for :func:`~judgeaudit.analysis.clustered.grouped_parts`.
AGREEMENT = [([CONSISTENT, BOTH_TIE], JUDGED_BOTH), ([DECIDED_AGREED], DECIDED_BOTH)]


def agreement(found: list[list[Sums] | None]) -> Agreement:
    """Of :data:`AGREEMENT`'s sums: the tie/tie count and share of the pairs judged in both
    orders, and the consistency among the pairs where an order named a side, each with the
    report's interval (``[None, None]`` and a null rate without a pair to count)."""
    both, decided = found
    tie = interval(both[1]) if both else None
    named = interval(decided[0]) if decided else None
    return {
        "both_tie": int(both[1].k) if both else 0,
        "both_tie_rate": tie["rate"] if tie else None,
        "both_tie_rate_ci": ci_of(tie),
        "decided_pairs": int(decided[0].n) if decided else 0,
        "decided_consistent": int(decided[0].k) if decided else 0,
        "decided_consistency_rate": named["rate"] if named else None,
        "decided_consistency_rate_ci": ci_of(named),
    }


def consistency_parts(
    db: Pairs, run_id: str, keys: list[str]
) -> dict[tuple[Any, ...], tuple[Sums, Agreement]]:
    """Per group of ``keys`` (``[]``: the run, for the trend): the swap consistency's
    :class:`Sums` and :func:`agreement` of the group, in one scan; a group without a pair
    judged in both orders is absent."""
    found = grouped_parts(db, keys, AGREEMENT, PAIRS, (run_id,))
    return {key: (sums[0][0], agreement(sums)) for key, sums in found.items() if sums[0]}


def ci_of(found: Clustered | None) -> list[float | None]:
    """A rate's interval as the JSON's ``[low, high]`` (``[None, None]`` without one)."""
    return [None, None] if found is None else [found["ci_low"], found["ci_high"]]


def _tested(s: Sums | None, k_name: str, n_name: str) -> dict[str, Any]:
    """A rate against 50%: exact two-sided binomial test on the design-effect-adjusted counts."""
    if s is None or s.n <= 0:
        return {k_name: 0, n_name: 0, "rate": None, "ci_low": None, "ci_high": None,
                "design_effect": None, "p_value": None}  # fmt: skip
    found = interval(s)
    deff = found["design_effect"]
    assert deff is not None  # s.n > 0
    n_eff = max(1, round(s.n / deff))
    k_eff = round(s.k / s.n * n_eff)
    return {k_name: int(s.k), n_name: int(s.n), **found,
            "p_value": mcnemar_exact(k_eff, n_eff - k_eff)}  # fmt: skip


#: Per swapped pair, its two orders: first-position wins (A in AB, B in BA; pref_ba is mapped
#: back) and orders that decided (named a side); an order without a verdict decided nothing.
SWAPPED = "CASE WHEN pref_ba IS NULL THEN 0 ELSE"
_AB_A, _BA_B = as_int("pref_ab = 'A'"), as_int("pref_ba = 'B'")
_AB_DEC, _BA_DEC = as_int("pref_ab IN ('A', 'B')"), as_int("pref_ba IN ('A', 'B')")
FIRST_WINS = f"({SWAPPED} COALESCE({_AB_A}, 0) + COALESCE({_BA_B}, 0) END)"
DECIDED = f"({SWAPPED} COALESCE({_AB_DEC}, 0) + COALESCE({_BA_DEC}, 0) END)"
FLIP = "(pref_ab IN ('A', 'B') AND pref_ba IN ('A', 'B') AND pref_ab != pref_ba)"


def position_bias(db: Pairs, run_id: str) -> dict[Any, FirstPosition]:
    """Per judge model, in one scan: first-position win rate over decided orders, of the real
    order disagreements the share the first position won (an order without a verdict is
    neither), and the interval of the swap-consistency rate (:data:`CONSISTENT` over :data:`JUDGED_BOTH`)."""
    flip_won = as_int(f"{FLIP} AND pref_ab = 'A'")
    parts = [([FIRST_WINS], DECIDED), ([flip_won], as_int(FLIP)), *AGREEMENT]
    found = grouped_parts(db, ["judge_model"], parts, PAIRS, (run_id,))
    out: dict[Any, FirstPosition] = {}
    for model in sorted(found, key=lambda k: (k[0] is not None, k[0])):
        orders, flips, agree = (sums[0] if sums else None for sums in found[model][:3])
        out[model[0]] = {
            "consistency_rate_ci": ci_of(None if agree is None else interval(agree)),
            "agreement": agreement(found[model][2:]),
            "first_position_win_rate": _tested(orders, "first_position_wins", "decided_orders"),
            "flips_won_by_first": _tested(flips, "won_by_first", "order_disagreements"),
        }
    return out

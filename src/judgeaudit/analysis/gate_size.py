"""The gate's own error rates at the size it saw (``gate.at_this_size``, the line under the
rule): how often it passes an unchanged judge, calls a rise of the margin worse, and, at most,
calls an unchanged judge worse; so a verdict is read with its own error rates.

Passing takes both criteria's bounds below the margin (misselection and the tie-aware rate,
``analysis/paired.py``). Under no change each overall change is close to normal with the exact
moments of its sign-flip null (the overall row's ``null_se``, ``paired.null_spread``: each
task's two sums keep or flip their signs together, so the two changes are correlated), and a
bound is the change plus t(G-1) times its standard error; so the chance that both bounds are below the margin delta is the bivariate
normal probability P(X < delta / se_m - t, Y < delta / se_t - t) at their correlation.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any, Literal

from judgeaudit.analysis import noninferiority as ni
from judgeaudit.analysis.gate_ties import where_both_decided
from judgeaudit.analysis.gate_verdicts import RISE_ALPHA
from judgeaudit.analysis.paired import OVERALL_SHARE, TIE_AWARE_ALPHA_SHARE

_N = NormalDist()


def both_below(a: float, b: float, rho: float) -> float:
    """P(X < a, Y < b) for standard normals of correlation ``rho``: the integral of
    phi(x) Phi((b - rho x) / sqrt(1 - rho^2)) over x < a (composite Simpson, 2,000 panels
    from -9); the limits rho = +-1 exactly."""
    if 1 - rho * rho < 1e-12:
        return _N.cdf(min(a, b)) if rho > 0 else max(0.0, _N.cdf(a) + _N.cdf(b) - 1)
    low = -9.0
    if a <= low:
        return 0.0
    scale, panels = math.sqrt(1 - rho * rho), 2000
    h = (a - low) / panels

    def f(x: float) -> float:
        return _N.pdf(x) * _N.cdf((b - rho * x) / scale)

    inner = sum((4 if i % 2 else 2) * f(low + i * h) for i in range(1, panels))
    return (f(low) + inner + f(a)) * h / 3


def null_model(row: dict[str, Any]) -> tuple[float, float | None, float]:
    """A paired row's spread under no change: misselection's standard error, the tie-aware
    rate's (None where the row has no tie-aware criterion: a bucket) and their correlation.
    The row's sign-flip null moments (``null_se``, ``tie_aware.null``); Connor's
    sqrt(psi deff / n) where a row lacks them."""
    n, flips = row["n_before"] or 0, row["paired"]
    discordance = (flips["flipped_to_misselected"] + flips["flipped_to_correct"]) / n
    se_m = row.get("null_se") or math.sqrt(discordance * (row.get("deff") or 1.0) / n)
    null = (row.get("tie_aware") or {}).get("null") or {}
    return se_m, null.get("se"), null.get("correlation") or 0.0


def pass_chance(
    row: dict[str, Any], margin: float, pairs: int | None = None
) -> tuple[float, float]:
    """How often an unchanged judge passes (both criteria, and misselection alone) at ``pairs``
    decisive pairs (the row's own by default) with the row's flips per pair and pairs per task:
    each standard error scales by sqrt(n / pairs), the tasks by pairs / n. The one power model
    of the gate: the "at this size" line prints it and ``planned_pairs`` solves it, so adding
    the pairs the gate asks for reads at least 80% on that line. 0 under the fewest pairs."""
    n = row["n_before"] or 0
    pairs = n if pairs is None else pairs
    if pairs < ni.min_pairs(margin):
        return 0.0, 0.0
    se_m, se_t, rho = null_model(row)
    shrink = math.sqrt(n / pairs)
    tasks = max(2, math.ceil(int(row.get("tasks") or 2) * pairs / n))
    t = ni.t_quantile(1 - ni.ALPHA, tasks - 1)
    alone = _N.cdf(margin / (se_m * shrink) - t)
    if se_t is None:
        return alone, alone
    return both_below(margin / (se_m * shrink) - t, margin / (se_t * shrink) - t, rho), alone


def planned_pairs(row: dict[str, Any], margin: float, power: float = ni.POWER) -> int:
    """The fewest decisive pairs at which :func:`pass_chance` (both criteria where the row has
    both) reaches ``power``, at the row's flips per pair and pairs per task (bisection; never
    under ``min_pairs``)."""
    low = high = ni.min_pairs(margin)
    while pass_chance(row, margin, high)[0] < power:
        low, high = high, high * 2
        if high > 10**9:
            return high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if pass_chance(row, margin, mid)[0] < power else (low, mid)
    return high if pass_chance(row, margin, low)[0] < power else low


def at_this_size(
    overall: dict[str, Any],
    margin: float,
    *,
    missing_verdicts: bool = False,
    tie_criterion: bool | None = None,
) -> dict[str, Any] | None:
    """The gate's error rates at this many decisive pairs and the flips it saw (None without
    decisive pairs, a paired row or a flip: nothing to plan from, a same-seed re-judge
    reproduces every verdict). ``missing_verdicts``: either run has an order without a verdict,
    so the no-verdict rise test can call an unchanged judge worse too. ``tie_criterion``: the
    gate has the tie-aware criterion although ``overall`` carries none (the pairs both runs
    decided, which a set-aside row is judged on: ``gate_ties``)."""
    n, flips = overall["n_before"] or 0, overall.get("paired")
    if not n or flips is None:
        return None
    discordance = (flips["flipped_to_misselected"] + flips["flipped_to_correct"]) / n
    if discordance == 0:
        return None
    deff = overall.get("deff") or 1.0
    share = ni.ALPHA * (overall.get("alpha_share") or OVERALL_SHARE)  # its share, 1 when alone
    both, alone = pass_chance(overall, margin)
    judged_on_ties = (  # the rule has the criterion
        overall.get("tie_aware") is not None if tie_criterion is None else tie_criterion
    )
    shares = {  # Bonferroni: the line names each, and the total is their sum
        "misselection": ni.ALPHA,
        "tie_aware": ni.ALPHA * TIE_AWARE_ALPHA_SHARE if judged_on_ties else 0.0,
        "no_verdict_rise": RISE_ALPHA if missing_verdicts else 0.0,
    }
    return {
        "pairs": n,
        "discordance": discordance,
        "deff": deff,
        "pass_unchanged": both,
        "pass_unchanged_misselection": alone,
        "catch_margin_rise": ni.power_at(n, discordance, margin, deff, alpha=share),
        "catch_alpha": share,
        "false_alarm_at_most": sum(shares.values()),
        "false_alarm_shares": shares,
    }


def judged_size(
    overall: dict[str, Any], margin: float, *, missing_verdicts: bool
) -> dict[str, Any] | None:
    """:func:`at_this_size` over the pairs the overall row's misselection was judged on: all
    its decisive pairs, or the pairs both runs decided when its rise was set aside
    (``gate_ties``; the chance over all of them, rises from A's ties included, was not what
    decided it)."""
    if not overall.get("set_aside"):
        return at_this_size(overall, margin, missing_verdicts=missing_verdicts)
    size = at_this_size(
        where_both_decided(overall),
        margin,
        missing_verdicts=missing_verdicts,
        tie_criterion=overall.get("tie_aware") is not None,
    )
    return None if size is None else {**size, "where_both_decided": True}


#: Why ``gate.at_this_size`` is null (``gate.at_this_size_because``): nothing to plan from.
NoSize = Literal[
    "no decisive pair", "unpaired", "no pair flipped", "no pair both runs decided flipped"
]


def no_size_because(overall: dict[str, Any]) -> NoSize:
    """Why :func:`judged_size` gave no figures for ``overall``: no decisive pair, unpaired runs,
    or no flip among the pairs it was judged on (all its decisive pairs, or the pairs both runs
    decided when its rise was set aside)."""
    if not overall.get("n_before"):
        return "no decisive pair"
    if overall.get("paired") is None:
        return "unpaired"
    return "no pair both runs decided flipped" if overall.get("set_aside") else "no pair flipped"


def size_line(size: dict[str, Any], margin: float, min_pairs: int) -> str:
    """The "at this size" line under the gate's rule (``margin`` in points)."""
    shares = size["false_alarm_shares"]
    named = [
        f"{shares[k] * 100:g}% {label}"
        for k, label in (
            ("misselection", "misselection"),
            ("tie_aware", "the tie-aware rate"),
            ("no_verdict_rise", "the rise in orders without a verdict"),
        )
        if shares[k]
    ]
    both = size.get("where_both_decided")
    if both:  # a set-aside row: judged on misselection over the pairs both runs decided
        passes = (
            f"an unchanged judge's misselection there passes ~"
            f"{size['pass_unchanged_misselection'] * 100:.0f}% of the time (the tie-aware "
            "rate, over every decisive pair, must pass too)"
            if size["pairs"] >= min_pairs
            else f"misselection there cannot pass under {min_pairs} pairs"
        )
    elif size["pairs"] < min_pairs:
        passes = f"an unchanged judge cannot pass under {min_pairs} decisive pairs"
    elif size["pass_unchanged"] == size["pass_unchanged_misselection"]:
        passes = f"an unchanged judge passes ~{size['pass_unchanged'] * 100:.0f}% of the time"
    else:
        passes = (
            f"an unchanged judge passes ~{size['pass_unchanged'] * 100:.0f}% of the time (both "
            f"criteria; ~{size['pass_unchanged_misselection'] * 100:.0f}% on misselection alone)"
        )
    return (
        f"  at this size ({size['pairs']} {'pairs both runs decided' if both else 'decisive pairs'}, "
        f"{size['discordance'] * 100:.1f}% "
        f"flipping, design effect {size['deff']:.2f}): {passes} and a rise of {margin:g} points "
        f"is called worse ~{size['catch_margin_rise'] * 100:.0f}% of the time (normal "
        f"approximations, one-sided, the rise at alpha {size['catch_alpha']:g}); an unchanged "
        f"judge is called worse at most {size['false_alarm_at_most'] * 100:g}% of the time "
        f"(Bonferroni: {' + '.join(named)})"
    )


def needed(row: dict[str, Any], margin: float, scale: dict[str, Any]) -> dict[str, Any]:
    """What would settle an undecided row: the pairs at which an unchanged judge passes 80% of
    the time by the "at this size" model (:func:`planned_pairs`, so the two never disagree), the
    tasks or trials that gives, and its judge cost (``scale``: run A's trials, run B's cost per
    decisive pair). Where the row already has that many pairs, more are not what it lacks:
    ``pass_unchanged`` is the chance at its own size and ``change``/``upper`` what keeps it open;
    ``bound_below_margin``: the bound is already below the margin (only the floor is missing)."""
    n, tasks = row["n_before"], row.get("tasks") or 0
    flips = row["paired"]["flipped_to_misselected"] + row["paired"]["flipped_to_correct"]
    deff = row.get("deff") or 1.0
    pairs = planned_pairs(row, margin) if flips else ni.min_pairs(margin)
    cost = scale.get("cost_per_decisive")
    upper = row.get("upper")
    return {
        "pairs": pairs,
        "more_pairs": max(0, pairs - n),
        "min_pairs": ni.min_pairs(margin),
        "discordance": flips / n,
        "deff": deff,
        "tasks": math.ceil(pairs / (n / tasks)) if tasks else None,
        "trials": _trials_needed(n, tasks, pairs / deff, deff, scale) if flips else None,
        "cost_usd": None if cost is None else cost * pairs,
        "pairs_now": n,
        "pass_unchanged": pass_chance(row, margin)[0] if flips else None,
        "change": row.get("change"),
        "upper": upper,
        "bound_below_margin": upper is not None and upper < margin,
    }


def _trials_needed(n: int, tasks: int, n0: float, deff: float, scale: dict[str, Any]) -> int | None:
    """Trials per task that would settle it over the same tasks, or None if none would.

    More trials put more pairs in each task, and the design effect 1 + (m - 1) rho grows with
    the pairs per task m (rho, the within-task correlation, from the observed design effect):
    n0 (1 + (k m - 1) rho) <= tasks k m needs tasks > n0 rho, with n0 the pairs needed
    without clustering (the planned pairs over the design effect); below that only more tasks
    help."""
    trials = scale.get("trials")
    if not trials or not tasks:
        return None
    m = n / tasks
    rho = (deff - 1) / (m - 1) if m > 1 else 0.0
    if tasks <= n0 * rho:
        return None
    factor = n0 * (1 - rho) / (m * (tasks - n0 * rho))
    return max(int(trials), math.ceil(int(trials) * factor))


def needed_line(need: dict[str, Any], tasks_now: int | None, summary: dict[str, Any]) -> str:
    """The gate's "not enough data" line for an inconclusive overall row: the pairs, tasks or
    trials and cost that settle it; or, where it already has the pairs the model plans (a small
    change the bound cannot yet put below the margin), that more pairs are not what it lacks."""
    margin, power = summary["margin"] * 100, summary["power"] * 100
    flips = (
        f"at the observed flips ({need['discordance'] * 100:.1f}% of pairs, task design effect "
        f"{need['deff']:.2f}) an unchanged judge"
    )
    if need["more_pairs"] == 0 and need["pass_unchanged"] is not None:
        # the chance itself is the "at this size" line's, printed above: said once
        change = "" if need["change"] is None else f"{need['change'] * 100:+.1f} points, "
        bound = "" if need["upper"] is None else f"bound {need['upper'] * 100:+.1f}"
        return (
            f"  not enough data: not for want of pairs: at these {need['pairs_now']} decisive "
            f"pairs an unchanged judge already passes at least {power:.0f}% of the time (the "
            f"'at this size' line); the row is kept open by its observed change "
            f"({change}{bound}); more pairs bring the bound below "
            f"{margin:g} points only if the true change is well under {margin:g} points"
        )
    where = [f"~{need['tasks']} tasks at this many pairs per task"] if need["tasks"] else []
    if need["trials"]:
        where.append(f"~{need['trials']} trials over these tasks")
    elif need["tasks"]:
        where.append(
            f"more trials over these {tasks_now} tasks would not do it: pairs of one task move "
            "together"
        )
    cost = (
        "judge cost n/a (no prices for run B's judge)"
        if need["cost_usd"] is None
        else f"judge cost ~${need['cost_usd']:.2f} at run B's cost per decisive pair"
    )
    return (
        f"  not enough data: {flips} passes {power:.0f}% of the time within {margin:g} points "
        f"(the 'at this size' model) at ~{need['pairs']} decisive pairs ({need['more_pairs']} "
        f"more; {'; '.join(where) or 'more tasks'}; {cost})"
    )

"""Formatting rates and intervals the same way in the HTML report and the app."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: the warning every format of a simulated run's report carries (text, Markdown, HTML, app)
SIMULATED = (
    "Simulated provider: these figures come from the embedded simulation, not from real models."
)


def simulated(report: Mapping[str, Any]) -> bool:
    """Whether the run's judge was the embedded simulated provider."""
    judge = ((report.get("manifest") or {}).get("models") or {}).get("judge") or {}
    return judge.get("base_url") == "embedded"


def ratio_text(value: float) -> str:
    """An odds ratio to three significant digits with their zeros (``1.00``, ``2.13``, ``796``;
    ``9.5e+03`` from a thousand): ``.3g`` printed 1.003 as ``1``, so an interval the headline
    counts as excluding 1 read ``[1, 2.13]``; a value that is not 1 but rounds to it gets the
    digits that tell it from 1 (``1.003``, ``0.9996``), up to six; one that is 1 even to six
    prints as 1 does, ``1.00`` (it printed ``1.0000000`` for 1.000000001)."""
    if not 1e-3 <= abs(value) < 1e3 or abs(float(f"{value:.3g}")) >= 1e3:
        return f"{value:.3g}"
    digits = next((d for d in range(3, 7) if float(f"{value:.{d}g}") != 1.0), 3)
    text = f"{value:#.{digits}g}"
    return text[:-1] if text.endswith(".") else text


def bucket_name(bucket: Mapping[str, Any], paren: bool = False) -> str:
    """`近同 near` (`近同 (near)` with ``paren``), or the label alone when its alias is the same
    word (`--labels en`, custom bins): never `near near`."""
    label, alias = str(bucket["label"]), str(bucket.get("alias") or "")
    if alias in ("", label):
        return label
    return f"{label} ({alias})" if paren else f"{label} {alias}"


def edges_text(lo: float, hi: float) -> str:
    """A bucket's gap interval, ``(0.1, 0.5]``; also the name of a bucket no label names."""
    return f"({lo:g}, {hi:g}]"


def bucket_edges(bucket: Mapping[str, Any]) -> str:
    """The gap column beside a bucket's name: its interval, or nothing when the name already is
    that interval (custom bins without labels), so it shows once, never `(0, 0.1]  (0, 0.1]`."""
    if bucket.get("lo") is None:
        return ""
    edges = edges_text(bucket["lo"], bucket["hi"])
    return "" if bucket_name(bucket) == edges else edges


def bucket_columns(bucket: Mapping[str, Any]) -> str:
    """The label and its alias in two text columns, or the label across both when they are the
    same word (the text report and `compare`)."""
    if bucket_name(bucket) == str(bucket["label"]):
        return f"{bucket['label']:<12}"
    return f"{bucket['label']:<4} {bucket['alias']:<7}"


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def bracket(pair: Sequence[float | None] | None, none: str = "—") -> str:
    """A rate's 95% interval in points, ``[24.2, 33.4]``, or ``none`` without one: the one
    printed form of a rate's interval in every text output (report, HTML, app, ``trend``),
    so a reader never meets ``24.2–33.4%`` in one place and ``[24.2, 33.4]`` in another."""
    low, high = pair or (None, None)
    if low is None or high is None:
        return none
    return f"[{_bound(low * 100)}, {_bound(high * 100)}]"


def _bound(points: float) -> str:
    """One decimal, unless that rounds a bound off 0 or 100 onto it: 0/40,000 has the upper
    bound 0.0096, which printed a zero-width ``[0.0, 0.0]``; more digits, up to three. A float
    within 1e-9 of 0 or 100 (a closed form's rounding) is that bound."""
    points = 0.0 if abs(points) < 1e-9 else 100.0 if abs(points - 100) < 1e-9 else points
    for digits in (1, 2, 3):
        shown = f"{points:.{digits}f}"
        if (points > 0 and float(shown) == 0) or (points < 100 and float(shown) == 100):
            continue
        return shown
    return shown


def with_ci(rate: float | None, pair: Sequence[float | None] | None, none: str = "[no CI]") -> str:
    """A rate and its interval, ``28.6% [24.2, 33.4]``; ``n/a`` without a rate, and ``none``
    after the rate when it has no interval (``[no CI]``, or the reason: never a bare rate that
    reads as one known exactly)."""
    if rate is None:
        return "n/a"
    shown = bracket(pair, none)
    return f"{pct(rate)} {shown}" if shown else pct(rate)


def with_interval(part: Mapping[str, Any] | None) -> str:
    """A period's figure (``rate``, ``ci_low``, ``ci_high``) as the table and the app's period
    list print it: ``12.3% [9.1, 16.2]``, ``[no CI]`` said, ``not measured``, ``n/a``."""
    if part and part.get("not_measured"):
        return "not measured"
    if not part or part.get("rate") is None:
        return "n/a"
    # without an interval it is said, never left to look like a rate known exactly
    return with_ci(part["rate"], [part.get("ci_low"), part.get("ci_high")], none="[no CI]")


def ci(row: Mapping[str, Any]) -> str:
    """A row's ``ci_low``/``ci_high`` as :func:`bracket`, or a dash when it has none."""
    return bracket([row.get("ci_low"), row.get("ci_high")])


def bounds(pair: Sequence[float | None] | None) -> str:
    """A share's 95% interval on the share's own 0–1 scale, ``[0.85, 0.98]``, or a dash."""
    low, high = pair or (None, None)
    return "—" if low is None or high is None else f"[{low:.2f}, {high:.2f}]"


def share(row: Mapping[str, Any], name: str) -> str:
    """An agent pair's share (success, judge wins) with its interval: ``0.94 [0.85, 0.98]``."""
    return f"{row[name]:.2f} {bounds(row.get(f'{name}_ci'))}"


def share_pair(p: Mapping[str, Any], name: str) -> str:
    """An agent pair's share of A then of B, each with its interval (the HTML report's and the
    app's cell): ``0.94 [0.87, 0.97] / 0.74 [0.63, 0.82]``."""
    return f"{share(p, f'{name}_a')} / {share(p, f'{name}_b')}"


def share_intervals(p: Mapping[str, Any]) -> str:
    """An agent pair's success and judge-win intervals, A then B (the text report's line under
    the pair, the app's under its table): ``success A [0.87, 0.97], B [0.63, 0.82]; judge wins
    ...``."""

    def two(name: str) -> str:
        a, b = (p.get(f"{name}_{side}_ci") for side in "ab")
        return f"A {bounds(a)}, B {bounds(b)}"

    return f"success {two('success_rate')}; judge wins {two('judge_win_rate')}"


#: The report's interval, named where a rate is printed (:data:`judgeaudit.analysis.clustered.METHOD`
#: in full).
TASK_WILSON = "Wilson with a task design effect"
#: The p-value of a paired row where no pair moved: nothing to test. One wording for the
#: misselection rows and the tie-aware row, in ``compare`` and the app's drift table alike.
NO_FLIPS = "no flips"


#: Why a no-verdict share has no interval (the report, ``judges``, the trend): the report's
#: interval is clustered by task, and a history period imported before per-task verdict counts
#: were kept has only the totals.
NO_TASK_COUNTS = (
    "the period's per-task verdict counts were not kept, as a history period imported before "
    "they were; for one, delete its period=... directory and import that day again"
)


def no_verdict(health: Mapping[str, Any], named: bool = False) -> str:
    """A judge's (or the run's) share of judged orders with no verdict and its interval:
    ``2.1% of orders (5/240; 95% CI [0.7, 6.0])``, or why it has none (:data:`NO_TASK_COUNTS`);
    ``named`` names the interval's method."""
    low, high = health.get("no_verdict_rate_ci") or (None, None)
    if low is not None:
        shown = f"; 95% CI {bracket([low, high])}" + (f", {TASK_WILSON}" if named else "")
    elif health["no_verdict_rate"] is not None:
        shown = f"; no interval: {NO_TASK_COUNTS}"
    else:
        shown = ""
    counts = f"{health['no_verdict_orders']}/{health['orders']}"
    return f"{pct(health['no_verdict_rate'])} of orders ({counts}{shown})"


#: Why an order has no verdict, by the run's judge source (``recorded``: the verdicts came from
#: a log, so no judge was called and nothing was retried).
NO_VERDICT_WHY = {
    False: "unparsable judge output after retries",
    True: "verdicts the log gave as null or unparsable",
}


def failures(health: Mapping[str, Any], recorded: bool) -> str:
    """The judge's calls that gave no verdict, or (``recorded``) the log's verdict lines that
    were null or unparsable: ``parse failures 7/28 calls``, ``7/28 recorded verdicts null or
    unparsable``."""
    failed, calls = health["parse_failures"], health["judge_calls"]
    if recorded:
        return f"{failed}/{calls} recorded verdicts null or unparsable"
    return f"parse failures {failed}/{calls} calls"


def verdict_line(judge: Mapping[str, Any], recorded: bool) -> str:
    """One judge model's verdict health (the text report's and the app's line)."""
    return f"{judge['judge_model']}: no verdict {no_verdict(judge)}, {failures(judge, recorded)}"


#: What an agent pair's success and judge-win shares count (said once per section).
SHARES = "success and judge wins: shares of all the pair's pairs, a tie no side's win"


def split(row: Mapping[str, Any]) -> str:
    """The three-way split of a row's decisive pairs and its tie-aware rate with interval."""
    if "tie_aware_ci" not in row:
        return ""
    return (
        f"right {row['right']}, wrong {row['wrong']}, tie {row['tie']}; "
        f"tie-aware {pct(row['tie_aware_rate'])} {bracket(row['tie_aware_ci'])}"
    )


def tested(stat: Mapping[str, Any] | None, k: str, n: str) -> str:
    """A rate with its count, interval and p-value against 50% (position bias)."""
    if not stat or not stat.get(n):
        return "n/a (none)"
    p = stat["p_value"]
    return f"{pct(stat['rate'])} ({stat[k]}/{stat[n]}) {ci(stat)}, p={p:.2g} vs 50%"


def tie_tie(b: Mapping[str, Any]) -> str:
    """How much of a swap consistency is tie/tie (position.agreement's keys, in a report row or
    a trend period): two ties agree, so an always-tie judge is 100% consistent having decided
    nothing. Then the consistency where an order named a side, ``not measured`` over none:
    `` (all of it tie/tie: 12 of 12 consistent pairs, …; where an order named a side,
    consistent not measured, 0 pairs)``."""
    if "both_tie" not in b:  # a report or period from before the twentieth session
        return ""
    both, consistent = b["both_tie"], b.get("consistent")
    share = f"{pct(b['both_tie_rate'])} {bracket(b.get('both_tie_rate_ci'))}"
    counted = f"{both} of {consistent} consistent pairs, {share} of pairs judged in both orders"
    of = f"{'all of it ' if both and both == consistent else ''}tie/tie: {counted}"
    n = b.get("decided_pairs", 0)
    named = (
        f"{pct(b['decided_consistency_rate'])} ({b['decided_consistent']}/{n}) "
        f"{bracket(b.get('decided_consistency_rate_ci'))}"
        if n
        else "not measured, 0 pairs"
    )
    return f" ({of}; where an order named a side, consistent {named})"


def bias(b: Mapping[str, Any]) -> str:
    """One judge's position bias: both statistics under their own names, unparsed orders."""
    return (
        f"{b['judge_model']}: swap-consistent {pct(b['consistency_rate'])} "
        f"{bracket(b.get('consistency_rate_ci'))}{tie_tie(b)}; unparsed orders "
        f"{b.get('unparsed_orders', 0)} (left out); of decided orders the first position won "
        f"{tested(b.get('first_position_win_rate'), 'first_position_wins', 'decided_orders')}"
        "; of real order disagreements the first position won "
        f"{tested(b.get('flips_won_by_first'), 'won_by_first', 'order_disagreements')}"
    )


#: Said where the position-bias section has no row: no pair was judged in both orders, so a
#: first position's wins cannot be told from the merits of the agent always placed first.
NO_SWAPPED = (
    "not identifiable: no pair was judged in both orders (AB and BA), so the first position's "
    "wins cannot be told apart from the agent placed first; judge each pair in both orders"
)


def weighted(part: Mapping[str, Any]) -> str:
    """Weighted agreement and kappa with their intervals (stratified Jeffreys, Rao-Wu bootstrap),
    or ``[no CI]`` as the as-labelled figures say it (a bare kappa read as a certain one)."""
    k_text = kappa(part.get("weighted_kappa"), part.get("weighted_kappa_ci"), "[no CI]")
    agreement_ci = bracket(part.get("weighted_agreement_ci"), "[no CI]")
    return (
        f"agreement {pct(part.get('weighted_agreement'))} {agreement_ci}, "
        f"kappa {k_text} (95%: {part.get('interval', '')})"
    )


def kappa(value: float | None, pair: Sequence[float | None] | None, none: str = "") -> str:
    """A kappa with its 95% interval on its own scale, ``0.62 [0.41, 0.83]``, ``n/a``, or the
    kappa then ``none`` without an interval."""
    if value is None:
        return "n/a"
    low, high = pair or (None, None)
    shown = none if low is None or high is None else f"[{low:.2f}, {high:.2f}]"
    return f"{value:.2f} {shown}" if shown else f"{value:.2f}"


#: The as-labelled intervals in a line that must stay short (the app's Review screen); the
#: report and JSON name them in full (``unweighted_interval``).
LABELLED_SHORT = (
    f"agreement {TASK_WILSON}, kappa asymptotic (Fleiss, Cohen & Everitt) with a task design effect"
)


def as_labelled(part: Mapping[str, Any]) -> str:
    """Agreement and Cohen's kappa as labelled, each with its interval (the method is
    ``part['unweighted_interval']``, said once beside them)."""
    return (
        f"agreement {with_ci(part['agreement'], part.get('agreement_ci'), none='[no CI]')}, "
        f"Cohen's kappa {kappa(part['kappa'], part.get('kappa_ci'), '[no CI]')}"
    )


def review_lines(review: Mapping[str, Any]) -> list[str]:
    """Human-review agreement as text lines (table and Markdown reports), confusion included."""
    if not review.get("labelled"):
        return ["human review: no labels yet (judgeaudit review export, then review import)"]
    lines = [f"human review: {review['labelled']} labelled pairs"]
    lines.extend(f"  {line}" for line in contradicting_line(review).splitlines())
    for name, rows_are in (("judge_vs_human", "judge"), ("success_check_vs_human", "check")):
        part = review.get(name)
        if not isinstance(part, dict):
            continue
        lines.append(
            f"  {name.replace('_', ' ')}: n={part['n']}, {as_labelled(part)} (as labelled, "
            f"unweighted; 95%: {part.get('unweighted_interval', 'none kept')})"
        )
        if "weighted_kappa" in part:
            lines.append(f"    weighted to the audit by stratum: {weighted(part)}")
        table = part["confusion"]
        columns = list(table)
        corner = f"{rows_are} \\ human"
        lines.append(f"    {corner:<14}" + "".join(f"{c:>8}" for c in columns))
        for row, counts in table.items():
            lines.append(f"    {row:<14}" + "".join(f"{counts[c]:>8}" for c in columns))
    return lines


def contradicting_line(review: Mapping[str, Any]) -> str:
    """The labels left out of the agreement figures because they contradict themselves, and the
    conversations whose success marks disagree between pairs, each as one line naming the first;
    empty when there are none."""
    lines = []
    if (found := review.get("contradicting") or {}).get("count"):
        lines.append(
            f"{found['count']} labelled pair{'' if found['count'] == 1 else 's'} left out of "
            "these figures, human_pref contradicting the label's own success marks "
            f"({_first(found['pair_ids'])}); correct them in the app's Review or with "
            "`review import`"
        )
    if (split := review.get("marks_disagreeing") or {}).get("count"):
        lines.append(
            f"{split['count']} conversation{'' if split['count'] == 1 else 's'} left out of the "
            f"success check vs human, marked 1 in one pair and 0 in another "
            f"({_first(split['conversations'])}; pairs {_first(split['pair_ids'])}); give "
            "them one mark in the app's Review or with `review import`"
        )
    return "\n".join(lines)


def _first(items: list[str]) -> str:
    return ", ".join(items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "")


NO_SIMULATOR = "no user simulator ran: imported pairs count here only with satisfied_a/_b"
#: A trend period's "user satisfied but failed" where :func:`no_simulator`: its chart, CSV, JSON
NO_USER_NOTE = (
    "not measured: the log holds no user satisfaction note (satisfied_a/_b on a pair line) "
    "and no user simulator ran"
)


def no_simulator(report: Mapping[str, Any]) -> bool:
    """Whether no user simulator ran and no imported pair said whether its user was satisfied
    (the line's 0/0 read as a finding where there was nothing to count)."""
    models = (report.get("manifest") or {}).get("models") or {}
    ran = "user_simulator" not in models or models["user_simulator"] is not None
    return not ran and not report["satisfied_but_failed"]["user_simulator"]["satisfied"]


def pts(v: float | None) -> str:
    """A change in points, signed, or n/a."""
    return "n/a" if v is None else f"{v * 100:+.1f}"


#: What a paired row whose pairs all kept their verdict prints in place of its interval: the
#: CR1 interval collapses to [+0.0, +0.0] there, which reads as a measured certainty; the
#: row's exact (Clopper-Pearson) bound beside it is what zero flips bound.
NO_PAIR_FLIPPED = "(no pair flipped)"
#: What a paired row prints in place of its interval where pairs flipped but every task's sum
#: sits at the mean (each task moved alike, or its flips cancelled): the spread between tasks
#: is estimated as 0, which bounds nothing (``noninferiority.clustered``); the exact bound stands.
#: Short: the app's drift table keeps both rates beside it at 80 columns.
NO_TASK_SPREAD = "(no spread)"


def change_interval(row: Mapping[str, Any], moved: int | None) -> str:
    """A row's change interval as compare and the app print it: ``[low, high]``, ``n/a``,
    :data:`NO_PAIR_FLIPPED` for a paired row where ``moved`` (its flips) is 0, or
    :data:`NO_TASK_SPREAD` where pairs moved but no spread between tasks could be estimated."""
    if moved == 0 and row.get("n", row.get("n_before")):
        return NO_PAIR_FLIPPED
    if row["ci_low"] is None:
        return NO_TASK_SPREAD if moved and (row.get("tasks") or 0) >= 2 else "n/a"
    return f"[{pts(row['ci_low'])}, {pts(row['ci_high'])}]"


def row_moved(row: Mapping[str, Any]) -> int | None:
    """A misselection row's flips either way (None unpaired)."""
    flips = row.get("paired")
    return None if flips is None else flips["flipped_to_misselected"] + flips["flipped_to_correct"]

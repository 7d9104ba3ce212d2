"""The trend's metric names: one typed owner for what the detector tests, what an alert names
and what a chart or CSV row is called, so the series (:func:`series`, here),
the detector (:mod:`judgeaudit.analysis.trend_alerts`), the renderings
(:mod:`judgeaudit.analysis.trend_fmt`) and the app's Trends screen import the words and their
mapping instead of comparing strings each their own way. The words are those of the JSON and
CSV, unchanged."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

#: what the detector tests (:func:`judgeaudit.analysis.trend_alerts.points_of`'s keys)
Tested = Literal["misselection", "near", "tie_aware"]
#: an alert's ``metric`` (JSON ``alerts[].metric``, the table's ``ALERT`` lines)
AlertMetric = Literal["misselection", "tie-aware rate"]
#: the charted series of a fixed name (CSV ``metric``, chart titles); a bucket's is
#: :func:`bucket_series`, a style term's :func:`odds_series`
Series = Literal[
    "misselection",
    "tie-aware misselection",
    "judge satisfied but failed",
    "user satisfied but failed",
    "no verdict",
    "position consistency",
    "human disagreement",
]

MISSELECTION: Final = "misselection"
TIE_AWARE: Final = "tie-aware rate"
#: each tested metric's alert name
ALERTED: Final[Mapping[Tested, AlertMetric]] = {
    "misselection": MISSELECTION,
    "near": MISSELECTION,
    "tie_aware": TIE_AWARE,
}
#: the series on whose chart an overall alert of each metric is marked
CHARTED: Final[Mapping[AlertMetric, Series]] = {
    MISSELECTION: "misselection",
    TIE_AWARE: "tie-aware misselection",
}
NO_VERDICT: Final = "no verdict"
#: why a rate over nothing is empty (``n`` = 0: a bucket no decisive pair fell into that period):
#: the JSON's ``no_interval`` and the CSV's, said rather than left blank
NOTHING_TO_COUNT: Final = "no rate: nothing to count this period (n = 0)"
HUMAN: Final = "human disagreement"
_BUCKET, _ODDS = "misselection ", "odds ratio "


def bucket_series(label: str) -> str:
    """A gap bucket's misselection series, ``misselection 近同``."""
    return _BUCKET + label


def odds_series(feature: str) -> str:
    """A style term's odds-ratio series, ``odds ratio cites_ids``."""
    return _ODDS + feature


def is_odds(name: str) -> bool:
    """An odds ratio (charted on its own scale), not a rate (charted in %)."""
    return name.startswith(_ODDS)


def alert_series(alert: Mapping[str, Any]) -> str:
    """The series an alert is marked on: a tie-aware alert on the tie-aware chart (not the
    misselection chart its bucket ``all`` would name), else its bucket's misselection."""
    if alert.get("metric") == TIE_AWARE:
        return CHARTED[TIE_AWARE]
    return CHARTED[MISSELECTION] if alert["bucket"] == "all" else bucket_series(alert["bucket"])


def nothing_to_count(part: Mapping[str, Any], n: Any) -> str | None:
    """:data:`NOTHING_TO_COUNT` for a rate with none (and no other reason) over ``n`` = 0."""
    said = part.get("no_interval") or part.get("not_measured")
    return NOTHING_TO_COUNT if not said and part.get("rate") is None and n == 0 else None


#: The count each period figure's rate is over (the figure's JSON key -> its count's key): the
#: series' ``n`` and what "nothing to count" is judged by read this one table.
COUNT_KEY: Final[Mapping[str, str]] = {
    "misselection": "decisive", "buckets": "decisive",  # the tie-aware rate's too
    "judge_satisfied_but_failed": "satisfied",  # satisfied sides
    "user_satisfied_but_failed": "satisfied",  # satisfied conversations
    "no_verdict": "orders",  # judged orders
    "position_consistency": "pairs",  # pairs judged in both orders
    "human_disagreement": "labelled",
}  # fmt: skip


def counted(part: dict[str, Any], figure: str) -> dict[str, Any]:
    """A period's figure ``figure`` (JSON) with ``no_interval``: its own reason, else
    :func:`nothing_to_count` over its count (:data:`COUNT_KEY`)."""
    n = part.get(COUNT_KEY[figure])
    return {**part, "no_interval": part.get("no_interval") or nothing_to_count(part, n)}


def no_interval_note(
    points: list[dict[str, Any]], *, gaps: bool = False, short: int | None = None
) -> str:
    """Which of a metric's periods have no interval and why, the periods of one reason named
    together (``P1, P2: reason; P3: other``: one reason said for mixed ones misled), or
    ``every period: reason`` when all share it (recorded logs without a satisfaction note: not
    thirty times the same). ``gaps``: only the periods with no rate (a gap in a line);
    ``short`` cuts a period's name (a chart title)."""
    by_reason: dict[str, list[str]] = {}
    said = [p for p in points if p.get("no_interval") and not (gaps and p["rate"] is not None)]
    for p in said:
        by_reason.setdefault(p["no_interval"], []).append(p["period"][:short])
    if len(by_reason) == 1 and len(said) == len(points) > 1:
        return f"every period: {next(iter(by_reason))}"
    return "; ".join(f"{', '.join(periods)}: {why}" for why, periods in by_reason.items())


def series(trend: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """metric name -> one {period, rate, ci_low, ci_high, n, no_interval} per period (charts,
    TUI, CSV); ``n`` is the count the rate is over (decisive pairs, satisfied sides or
    conversations, judged orders, pairs judged in both orders, labelled pairs; none for an odds
    ratio), ``no_interval`` says why a rate has no interval (else None)."""
    out: dict[str, list[dict[str, Any]]] = {}

    def add(name: str, period: str, part: dict[str, Any] | None, n: Any = None) -> None:
        part = part or {}
        shown = {k: part.get(k) for k in ("rate", "ci_low", "ci_high")}
        why = part.get("no_interval") or part.get("not_measured")
        if part.get("not_measured"):
            n = None  # nothing was counted: an n of 0 would read "measured, none"
        why = why or nothing_to_count(part, n)  # an empty cell said, not blank
        point = {"period": period, **shown, "n": n, "no_interval": why}
        out.setdefault(name, []).append(point)

    for p in trend["periods"]:
        period = p["period"]

        add(CHARTED[MISSELECTION], period, p["misselection"], _n(p, "misselection"))
        for b in p["buckets"]:
            add(bucket_series(b["label"]), period, b, _n({"buckets": b}, "buckets"))
        # n: what the rate is over; the tie-aware rate's, (wrong + tie/2) / decisive, too
        add(CHARTED[TIE_AWARE], period, _tie_aware(p["misselection"]), _n(p, "misselection"))
        for who in ("judge", "user"):  # the satisfied sides (judge) or conversations (user)
            figure = f"{who}_satisfied_but_failed"
            add(f"{who} satisfied but failed", period, p[figure], _n(p, figure))
        add(NO_VERDICT, period, p["no_verdict"], _n(p, "no_verdict"))
        add("position consistency", period, p["position_consistency"],
            _n(p, "position_consistency"))  # fmt: skip
        if any(q["human_disagreement"] for q in trend["periods"]):
            add(HUMAN, period, p["human_disagreement"], _n(p, "human_disagreement"))
        for term in p["style_odds_ratios"]:
            # an unstable period is a gap: its size is not measured, and on a shared axis its
            # interval would flatten the stable periods' line (docs/trend.md)
            shown = None if term.get("unstable") else term
            add(odds_series(term["feature"]), period,
                shown and {"rate": term["odds_ratio"], "ci_low": term["ci_low"],
                           "ci_high": term["ci_high"]})  # fmt: skip
    return out


def _n(period: Mapping[str, Any], figure: str) -> Any:
    """The count a period's ``figure`` is over (:data:`COUNT_KEY`), None where it has none."""
    return (period.get(figure) or {}).get(COUNT_KEY[figure])


def _tie_aware(part: dict[str, Any]) -> dict[str, Any]:
    low, high = part.get("tie_aware_ci") or (None, None)
    return {"rate": part.get("tie_aware_rate"), "ci_low": low, "ci_high": high,
            "not_measured": part.get("not_measured")}  # fmt: skip

"""Alerts that do not cry wolf: has misselection risen above the baseline window?

The detector (one owner; the bench ``bench/trend_alerts.py`` measures it):

- **Baseline**: the first ``baseline`` periods of the series (default 7), pooled.
- **Per later period and metric** (overall misselection, the near bucket (the first one), and
  the overall tie-aware rate ``(wrong + tie/2) / decisive``, tested on ``wrong + tie/2`` of the
  decisive pairs: a tie is never a misselection, so a judge that starts answering "tie" lowers
  misselection and raises only this):
  a one-sided Fisher exact test of "this period's rate is above the baseline's" on *effective*
  counts: each side's decisive pairs divided by a design effect for task clustering (the
  report's, :mod:`judgeaudit.analysis.clustered`; the baseline's is the n-weighted mean of its
  periods', and a period's is never taken below the baseline's, since one period's estimate
  from a few dozen tasks is noisy and too small a one would make the test anti-conservative),
  rounded as the report's position-bias test rounds them. Exact, because the tail a Holm
  threshold reaches (p < 0.001) is where a normal approximation of a rate of 0.15 is too light.
- **Family-wise control**: Holm across every (period, metric) test of the series, at
  ``alpha`` (default 0.05): the chance that a drift-free series raises *any* alert is at most
  alpha (measured by the bench), whatever its length; the price is sensitivity on long series.
- **Size of the rise**: the difference with Newcombe's hybrid score interval on the same
  effective counts (:func:`judgeaudit.analysis.stats.newcombe_diff`).

A period whose metric has fewer than ``MIN_DECISIVE`` decisive pairs is not tested (it cannot
speak, and an untested period does not spend the family's error rate).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judgeaudit.analysis.stats import fisher_greater, holm, newcombe_diff
from judgeaudit.analysis.trend_metrics import ALERTED

ALPHA = 0.05
BASELINE = 7
MIN_DECISIVE = 10
#: The exit code of ``trend --fail-on-alert`` when any alert is raised (a drift gate tripped,
#: as ``compare --fail-on-rise`` reports a worse judge).
ALERT_EXIT = 3
#: ... and when nothing could be tested (too few periods, or none with enough decisive pairs):
#: "no alert" is then no finding, and a cron job must not read it as healthy (``compare
#: --fail-on-rise``'s inconclusive code).
UNTESTED_EXIT = 5
ACTION = (
    "lower the judge's weight in the reward until this is explained; inspect judge model and "
    "prompt drift (the manifest changes listed), and re-judge a sample of this period with the "
    "baseline judge (judgeaudit rejudge OUT --judge-model BASELINE --out DIR, with "
    "--judge-endpoint for recorded verdicts; then judgeaudit compare DIR OUT --fail-on-rise: "
    "the baseline as run A, so a worse current judge is a rise)"
)
#: A recorded log carries the conversations only when its pair lines hold trajectory_a/_b; without
#: them ``rejudge`` refuses (it would show the judge two empty transcripts), so the baseline
#: judge re-judges the sample where the conversations are, and the audit compares the two logs.
RECORDED_ACTION = (
    "lower the judge's weight in the reward until this is explained; inspect judge model and "
    "prompt drift (the manifest changes listed), and re-judge a sample of this period with the "
    "baseline judge: if the log carries the conversations (trajectory_a/_b), judgeaudit rejudge "
    "OUT --judge-model BASELINE --judge-endpoint URL --out DIR; if it does not, have the "
    "baseline judge re-judge a sample of the period's pairs where the conversations are kept, "
    "log its verdicts as recorded-jsonl with the same pair_ids and audit that file into DIR "
    '(import recorded-jsonl, then run with [judge] source = "recorded"); then judgeaudit '
    "compare DIR OUT --fail-on-rise (the baseline as run A, so a worse current judge is a "
    "rise). Or label a sample by hand: judgeaudit review export OUT"
)
METHOD = {
    "test": "one-sided Fisher exact test, period vs pooled baseline window, on "
    "design-effect-adjusted (effective) counts (a period's design effect at least the baseline's)",
    "multiplicity": "Holm across every (period, metric) tested in the series: family-wise "
    "error (any false alert in a drift-free series) <= alpha",
    "rise_interval": "Newcombe hybrid score interval (method 10) on the effective counts, 95%",
    "metrics": "overall misselection, the near bucket (the first) and the overall tie-aware "
    "rate (wrong + tie/2) / decisive, counted as wrong + tie/2 of the decisive pairs with the "
    "misselection's design effect",
}


@dataclass(frozen=True)
class Point:
    """One period's rate: misselected (wrong; for the tie-aware rate wrong + tie/2) of decisive
    pairs and its design effect."""

    period: str
    wrong: float
    decisive: int
    design_effect: float = 1.0


def _effective(k: float, n: float, deff: float) -> tuple[int, int]:
    n_eff = max(1, round(n / max(1.0, deff))) if n else 0
    return (round(k / n * n_eff) if n else 0), n_eff


def baseline_counts(points: list[Point]) -> tuple[float, int, float]:
    """Pooled (wrong, decisive, design effect) of the baseline window."""
    k = sum(p.wrong for p in points)
    n = sum(p.decisive for p in points)
    weighted = sum(p.decisive * max(1.0, p.design_effect) for p in points)
    return k, n, (weighted / n if n else 1.0)


def period_tests(
    metric: str, points: list[Point], baseline: int = BASELINE
) -> list[dict[str, Any]]:
    """Every testable period after the baseline: its rise, interval and raw p value."""
    k0, n0, deff0 = baseline_counts(points[:baseline])
    e_k0, e_n0 = _effective(k0, n0, deff0)
    out = []
    for index, p in enumerate(points[baseline:], start=baseline):
        if p.decisive < MIN_DECISIVE or n0 < MIN_DECISIVE:
            continue
        e_k1, e_n1 = _effective(p.wrong, p.decisive, max(p.design_effect, deff0))
        rise, low, high = newcombe_diff(e_k0, e_n0, e_k1, e_n1)
        out.append(
            {
                "period": p.period,
                "index": index,
                "metric": metric,
                "rate": p.wrong / p.decisive,
                "baseline_rate": k0 / n0,
                "rise": p.wrong / p.decisive - k0 / n0,
                "rise_ci": [low, high],
                "rise_effective": rise,
                "decisive": p.decisive,
                "baseline_decisive": n0,
                "effective_n": e_n1,
                "baseline_effective_n": e_n0,
                "p_value": fisher_greater(e_k1, e_n1, e_k0, e_n0),
            }
        )
    return out


def detect(
    series: dict[str, list[Point]], baseline: int = BASELINE, alpha: float = ALPHA
) -> tuple[list[dict[str, Any]], int]:
    """(the tests Holm rejects, in period order; how many tests were made)."""
    made = [t for metric, points in series.items() for t in period_tests(metric, points, baseline)]
    adjusted = holm([t["p_value"] for t in made])
    fired = []
    for test, p_adj in zip(made, adjusted, strict=True):
        test["p_adjusted"] = p_adj
        if p_adj < alpha and test["rise"] > 0:
            fired.append(test)
    fired.sort(key=lambda t: (t["index"], t["metric"]))
    return fired, len(made)


def points_of(trend: dict[str, Any]) -> dict[str, list[Point]]:
    """The three watched series from a trend (overall misselection, near bucket, tie-aware)."""

    def point(period: str, part: dict[str, Any]) -> Point:
        if part.get("not_measured"):  # an outage's all-tie pairs would dilute the baseline
            return Point(period, 0, 0, 1.0)
        return Point(
            period, int(part.get("wrong") or 0), int(part.get("decisive") or 0),
            float(part.get("design_effect") or 1.0),
        )  # fmt: skip

    def tie_aware(period: str, part: dict[str, Any]) -> Point:
        base = point(period, part)
        return Point(period, base.wrong + int(part.get("tie") or 0) / 2 if base.decisive else 0,
                     base.decisive, base.design_effect)  # fmt: skip

    periods = trend["periods"]
    return {
        "misselection": [point(p["period"], p["misselection"]) for p in periods],
        "near": [point(p["period"], p["buckets"][0]) for p in periods if p["buckets"]],
        "tie_aware": [tie_aware(p["period"], p["misselection"]) for p in periods],
    }


def _changes(trend: dict[str, Any], index: int, baseline: int) -> dict[str, Any]:
    """What changed in the run's manifest since the baseline window."""
    base = trend["periods"][:baseline]
    now = trend["periods"][index]
    out: dict[str, Any] = {}
    for key in ("judge_models", "prompt_hashes"):
        before = sorted({v for p in base for v in p[key]})
        if sorted(now[key]) != before:
            out[key] = {"baseline": before, "now": now[key]}
    if trend["kind"] != "recorded":  # recorded logs change content daily by design
        before_sets = sorted({p["task_set"] for p in base})
        if [now["task_set"]] != before_sets:
            out["task_set"] = {"baseline": before_sets, "now": now["task_set"]}
    return out


def add_alerts(
    trend: dict[str, Any], baseline: int = BASELINE, alpha: float = ALPHA
) -> dict[str, Any]:
    """Put ``alerts`` (and the detector's settings) into the trend and return it."""
    periods = trend["periods"]
    if len(periods) <= baseline:
        trend["alerts"] = []
        trend["detector"] = {**METHOD, "baseline_periods": baseline, "alpha": alpha,
                             "tests": 0, "note": f"needs more than {baseline} periods"}  # fmt: skip
        return trend
    fired, made = detect(points_of(trend), baseline, alpha)
    near_label = periods[0]["buckets"][0]["label"] if periods[0]["buckets"] else None
    seen: set[str] = set()
    alerts = []
    for t in fired:
        alerts.append(
            {
                "period": t["period"],
                "metric": ALERTED[t["metric"]],
                "bucket": near_label if t["metric"] == "near" else "all",
                "first": t["metric"] not in seen,
                "rate": t["rate"],
                "baseline_rate": t["baseline_rate"],
                "rise": t["rise"],
                "rise_ci": t["rise_ci"],
                "p_value": t["p_value"],
                "p_adjusted": t["p_adjusted"],
                "decisive": t["decisive"],
                "changes": _changes(trend, t["index"], baseline),
                "action": RECORDED_ACTION if trend.get("kind") == "recorded" else ACTION,
                "out": periods[t["index"]]["out"],
                "run_id": periods[t["index"]]["run_id"],
            }
        )
        seen.add(t["metric"])
    trend["alerts"] = alerts
    trend["detector"] = {
        **METHOD,
        "baseline_periods": baseline,
        "baseline": [p["period"] for p in periods[:baseline]],
        "alpha": alpha,
        "tests": made,
        "min_decisive": MIN_DECISIVE,
        "exit_code_on_alert": ALERT_EXIT,
    }
    return trend


def untested(trend: dict[str, Any]) -> str | None:
    """Why the detector ran no test on ``trend`` (its note, or that no period had
    :data:`MIN_DECISIVE` decisive pairs), or None when it tested something."""
    detector = trend.get("detector", {})
    if detector.get("tests"):
        return None
    return str(detector.get("note") or f"no period had {MIN_DECISIVE} decisive pairs to test")

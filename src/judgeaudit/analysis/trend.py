"""The trend: one point per run, ordered by period, each figure with its interval.

Every figure of a period is the report's own for that run (:func:`build_report`, the one owner
of each formula and interval); this module only picks the runs, orders them, keeps one set of
buckets across the series (:func:`judgeaudit.analysis.trend_metrics.series` lays the figures
out by metric). The change detector is
:mod:`judgeaudit.analysis.trend_alerts`; the renderings are :mod:`judgeaudit.analysis.trend_fmt`.

A series is one kind of run over one gap source (and, for simulated or imported runs, one task
set): runs that mix them are refused with one line naming both, because their rates measure
different things (recorded logs change content every day by design, so their task set is not
compared; a change of it is still listed in an alert).

Style odds ratios are charted, never alerted on (the detector tests misselection only); a
period whose term is unstable (:func:`judgeaudit.analysis.why.instability`) keeps its figures
and the flag in ``style_odds_ratios`` but is a gap in the series, since its size is not measured.
"""

from __future__ import annotations

import glob
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from judgeaudit.analysis.clustered import METHOD, interval
from judgeaudit.analysis.drift import task_set_key
from judgeaudit.analysis.engines.auto import open_engine
from judgeaudit.analysis.engines.history import RUN_SUFFIX, RunRecords, is_history, safe_name
from judgeaudit.analysis.fmt import NO_TASK_COUNTS, NO_USER_NOTE, no_simulator
from judgeaudit.analysis.frame import AnalysisError, open_db
from judgeaudit.analysis.judged_by import judged_by
from judgeaudit.analysis.position import consistency_parts
from judgeaudit.analysis.report import ReportOptions, build_report
from judgeaudit.analysis.report_types import Report
from judgeaudit.analysis.trend_metrics import HUMAN, NO_VERDICT, counted, is_odds
from judgeaudit.analysis.unfinished import unfinished
from judgeaudit.analysis.verdicts import NOT_MEASURED, nothing_judged
from judgeaudit.analysis.why import is_unstable
from judgeaudit.audit.spec.records import recorded_verdicts
from judgeaudit.score_scale import SATISFIED_AT

Kind = Literal["recorded", "imported", "simulated", "rejudge"]
GLOB_CHARS = set("*?[")


@dataclass(frozen=True)
class RunRef:
    """One run of the series and what identifies its judge and inputs."""

    out: Path
    run_id: str
    period: str
    period_from: Literal["period", "created_at"]
    created_at: str
    kind: Kind
    gap_source: str
    task_set: str  # the series' own: the tasks hash where every run has one (drift.task_set_key)
    judge_models: tuple[str, ...]
    prompt_hashes: tuple[str, ...]


@dataclass(frozen=True)
class TrendOptions:
    gap_source: str | None = None
    bins: list[float] | None = None
    labels: list[str] | None = None
    threshold: float = SATISFIED_AT


def expand(targets: list[str]) -> list[Path]:
    """Output directories from directories (an OUT, or a folder of OUTs) and globs."""
    outs: list[Path] = []
    for target in targets:
        if GLOB_CHARS & set(target):
            matched = sorted(glob.glob(target))
            if not matched:
                raise AnalysisError(
                    f"trend: {target}: the pattern matches nothing; give output directories "
                    "(or quote a glob that matches some)"
                )
            paths = [Path(m) for m in matched]
        else:
            paths = [Path(target)]
        for path in paths:
            outs += _outs_in(path)
    if not outs:
        raise AnalysisError(f"trend: {' '.join(targets)}: no audit output directory found")
    return list(dict.fromkeys(outs))


def _outs_in(path: Path) -> list[Path]:
    if is_history(path):  # a Parquet history: every period's run is in it
        return [path]
    if (path / "audit.db").exists() or path.name == "audit.db":
        return [path if path.is_dir() else path.parent]
    if path.is_dir():
        # not a hidden folder: a day being replaced (``.DAY.new-*``) or kept (``.replaced``)
        found = sorted(p.parent for p in path.glob("*/audit.db") if p.parent.name[:1] != ".")
        if found:
            return found
    raise AnalysisError(
        f"trend: {path}: no audit.db here or in its subdirectories; give the output "
        "directories of finished runs (or a directory of daily recorded-verdict files)"
    )


def _kind(manifest: dict[str, Any]) -> Kind:
    if recorded_verdicts(manifest):
        return "recorded"
    if (manifest.get("trajectories") or {}).get("from"):
        return "rejudge"
    source = str((manifest.get("task_set") or {}).get("source") or "")
    return "simulated" if source.startswith("builtin:") or source.endswith(".toml") else "imported"


def runs_of(outs: list[Path]) -> list[RunRef]:
    """Every finished run in ``outs``, ordered by period (else creation time)."""
    refs: list[RunRef] = []
    task_sets: list[dict[str, Any]] = []
    for out in outs:
        db = open_db(out)
        try:
            rows = db.execute(
                "SELECT run_id, created_at, manifest FROM runs WHERE status = 'finished'"
                " ORDER BY created_at"
            ).fetchall()
            for run_id, created, text in rows:
                manifest = json.loads(text)
                task_sets.append(manifest.get("task_set") or {})
                settings = manifest.get("settings", {})
                models, hashes = judged_by(db, run_id, manifest)
                period = manifest.get("period")
                refs.append(
                    RunRef(
                        out=out,
                        run_id=str(run_id),
                        period=str(period or created),
                        period_from="period" if period else "created_at",
                        created_at=str(created),
                        kind=_kind(manifest),
                        gap_source=str(settings.get("gap_source", "capability")),
                        task_set="",
                        judge_models=models,
                        prompt_hashes=hashes,
                    )
                )
        finally:
            db.close()
    if not refs:
        left = "; ".join(f"{x['out']}#{x['run_id']} is {x['because']}" for x in unfinished(outs))
        raise AnalysisError(
            "trend: no finished run in the given directories" + (f" ({left})" if left else "")
        )
    key = task_set_key(task_sets)
    refs = [
        replace(r, task_set=str(t.get(key) or "")) for r, t in zip(refs, task_sets, strict=True)
    ]
    refs.sort(key=lambda r: (r.period, r.created_at))
    return refs


def check_series(refs: list[RunRef], gap_source: str | None) -> None:
    """Refuse a series that mixes what cannot be compared (one line, exit 2)."""
    first = refs[0]
    for ref in refs[1:]:
        where = f"{ref.out}#{ref.run_id} and {first.out}#{first.run_id}"
        if ref.kind != first.kind:
            raise AnalysisError(
                f"trend: {where}: a {ref.kind} run and a {first.kind} run in one series; "
                "trend one kind of run at a time"
            )
        if gap_source is None and ref.gap_source != first.gap_source:
            raise AnalysisError(
                f"trend: {where}: gap sources {ref.gap_source!r} and {first.gap_source!r} differ; "
                "give --gap-source to put every run on one, or trend them apart"
            )
        if ref.kind != "recorded" and ref.task_set != first.task_set:
            raise AnalysisError(
                f"trend: {where}: different task sets ({ref.task_set[:12]} vs "
                f"{first.task_set[:12]}); a series compares one task set: trend them apart"
            )
        if ref.period_from == "period" and ref.period == first.period and ref is not first:
            raise AnalysisError(
                f"trend: {where}: both are period {ref.period}; give one run per period"
            )
    periods = [r.period for r in refs]
    if len(set(periods)) != len(periods):
        twice = next(p for p in periods if periods.count(p) > 1)
        raise AnalysisError(f"trend: period {twice} has two runs; give one run per period")


def _consistency(out: Path, run_id: str, engine: str) -> dict[str, Any]:
    """Swap consistency over the run's pairs, the report's owner's (position.consistency_parts:
    the report gives it per judge model, a period needs the run's), with how much of it is
    tie/tie and the consistency where an order named a side (position.agreement)."""
    db = open_db(out)
    try:
        pairs, _ = open_engine(engine, db, out, run_id)
        try:
            found = consistency_parts(pairs, run_id, []).get(())
        finally:
            pairs.close()
    finally:
        db.close()
    if found is None:
        return {**_none(), "pairs": 0}
    sums, agreed = found
    return {**interval(sums), "pairs": int(sums.n), "consistent": int(sums.k), **agreed}


def _none() -> dict[str, Any]:
    return {"rate": None, "ci_low": None, "ci_high": None}


def _rate(part: Mapping[str, Any]) -> dict[str, Any]:
    return {k: part.get(k) for k in ("rate", "ci_low", "ci_high", "design_effect")}


def period_figures(report: Report, consistency: dict[str, Any]) -> dict[str, Any]:
    """The trend's figures of one run, taken from its report (never recomputed)."""
    split = ("right", "wrong", "tie", "decisive", "tie_aware_rate", "tie_aware_ci")
    overall: Mapping[str, Any] = report.get("overall") or {}
    buckets = [
        {"label": b["label"], "alias": b.get("alias"), "lo": b["lo"], "hi": b["hi"],
         **_rate(b), **{k: b.get(k) for k in split}}
        for b in report["buckets"]
    ]  # fmt: skip
    sbf = report["satisfied_but_failed"]
    verdicts = report["verdicts"]
    # the report's interval (verdicts.verdict_health), never a second formula; a history
    # period imported before per-task counts were kept has none, and says so
    low, high = verdicts.get("no_verdict_rate_ci") or (None, None)
    untold = verdicts["no_verdict_rate"] is not None and low is None
    review = (report.get("human_review") or {}).get("judge_vs_human") or {}
    disagreement = None
    if review.get("weighted_agreement") is not None:
        a_low, a_high = review.get("weighted_agreement_ci") or (None, None)
        disagreement = {
            "rate": 1 - review["weighted_agreement"],
            "ci_low": None if a_high is None else 1 - a_high,
            "ci_high": None if a_low is None else 1 - a_low,
            "labelled": review.get("n"),
            # the report's stratified Jeffreys interval; without one, the report's reason
            "no_interval": None if a_low is not None else review.get("interval"),
        }
    style = report.get("style") or {}
    keep = ("feature", "kind", "odds_ratio", "ci_low", "ci_high", "p_value")
    odds = [
        {**{k: t.get(k) for k in keep}, "unstable": is_unstable(t)}
        for t in style.get("terms", [])
        if t.get("feature") != "position"
    ]
    misselection = {**_rate(overall), **{k: overall.get(k) for k in split}}
    if nothing_judged(verdicts):  # a judge outage: its all-tie 0% is no measurement
        gone = {"rate": None, "ci_low": None, "ci_high": None, "tie_aware_rate": None,
                "tie_aware_ci": None, "not_measured": NOT_MEASURED}  # fmt: skip
        misselection = {**misselection, **gone}
        buckets = [{**b, **gone} for b in buckets]
        # every order a tie agrees with nothing: its 0% consistency is no measurement either
        consistency = {**consistency, **_none(), "not_measured": NOT_MEASURED}
    # a rate over nothing (n = 0) says so in no_interval, in the words of the CSV (one owner)
    return {
        "pairs": report["pairs"],
        "misselection": counted(misselection, "misselection"),
        "buckets": [counted(b, "buckets") for b in buckets],
        "judge_satisfied_but_failed": counted(
            {**_rate(sbf["judge"]), "satisfied": sbf["judge"]["satisfied"]}, "judge_satisfied_but_failed"),
        "user_satisfied_but_failed": counted({
            **_rate(sbf["user_simulator"]), "satisfied": sbf["user_simulator"]["satisfied"],
            # nothing to count (recorded logs without satisfied_a/_b): said, not an empty chart
            **({"not_measured": NO_USER_NOTE} if no_simulator(report) else {}),
        }, "user_satisfied_but_failed"),
        "no_verdict": counted({
            "rate": verdicts["no_verdict_rate"], "ci_low": low, "ci_high": high,
            "orders": verdicts["orders"], "no_verdict_orders": verdicts["no_verdict_orders"],
            "no_interval": NO_TASK_COUNTS if untold else None,
        }, "no_verdict"),
        "position_consistency": counted(consistency, "position_consistency"),
        "human_disagreement": disagreement,
        "style_odds_ratios": odds,
    }  # fmt: skip


_OVER_ORDERS = "over judged orders (two a swapped pair), clustered by task"
INTERVALS = {
    "misselection, buckets, satisfied-but-failed, position consistency": METHOD,
    "no verdict": f"the same, {_OVER_ORDERS}; none for a period whose per-task verdict counts "
    "were not kept (no_interval says why)",
    "human disagreement": "1 - weighted agreement; stratified Jeffreys interval (the report's)",
    "style odds ratios": "task-clustered GLM, Wald interval (the report's)",
}


def interval_method(metric: str) -> str:
    """The method of a :func:`~judgeaudit.analysis.trend_metrics.series` metric's interval, in :data:`INTERVALS`' words (the
    CSV names it on every row that has an interval)."""
    if metric == NO_VERDICT:
        return f"{METHOD}; {_OVER_ORDERS}"
    if metric == HUMAN:
        return INTERVALS[HUMAN]
    if is_odds(metric):
        return INTERVALS["style odds ratios"]
    return METHOD


def build_trend(targets: list[str], options: TrendOptions = TrendOptions()) -> dict[str, Any]:
    """The series over every finished run the targets name (without alerts)."""
    outs = expand(targets)
    refs = runs_of(outs)
    check_series(refs, options.gap_source)
    points: list[dict[str, Any]] = []
    bins, labels = options.bins, options.labels
    source = options.gap_source
    for ref in refs:
        # A Parquet history's pairs are read by DuckDB; an OUT's as `report` reads them (auto).
        engine = "duckdb" if is_history(ref.out) else "auto"
        report = build_report(
            ref.out,
            ReportOptions(
                ref.run_id, source or ref.gap_source, bins, labels, options.threshold, engine
            ),
        )
        # Every period on the first period's buckets: default edges can follow the data
        # (external rewards), and a bucket must mean the same thing along the series.
        bins = bins or report["bins"]
        labels = labels or [b["label"] for b in report["buckets"]]
        source = source or report["gap_source"]
        points.append(
            {
                "period": ref.period,
                "period_from": ref.period_from,
                "out": str(ref.out),
                "run_id": ref.run_id,
                "created_at": ref.created_at,
                "judge_models": list(ref.judge_models),
                "prompt_hashes": list(ref.prompt_hashes),
                "task_set": ref.task_set,
                **period_figures(report, _consistency(ref.out, ref.run_id, engine)),
            }
        )
        if engine == "duckdb" and (left := _without_verdict(ref.out, ref.run_id)) is not None:
            points[-1]["pairs_without_verdict"] = left  # as a daily folder's day says it
    return {
        "kind": refs[0].kind,
        "gap_source": source,
        "bins": bins,
        "labels": labels,
        "threshold": options.threshold,
        "periods": points,
        "intervals": INTERVALS,
        **({"unfinished": dropped} if (dropped := unfinished(outs)) else {}),
    }


def _without_verdict(history: Path, run_id: str) -> int | None:
    """A history period's pairs its import left out for want of a verdict (its run records);
    None for a period imported before the count was kept."""
    for path in history.glob(f"period=*/{safe_name(run_id)}{RUN_SUFFIX}"):
        if (kept := RunRecords.read(path)).run_id == run_id:
            return kept.pairs_without_verdict
    return None

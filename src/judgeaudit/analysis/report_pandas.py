"""The report built from the whole ``audit_pairs`` frame in pandas: the reference the SQL report
(:mod:`judgeaudit.analysis.report`) is held equal to, kept apart so that report imports no pandas."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pandas as pd

from judgeaudit.analysis import metrics
from judgeaudit.analysis.aggregate import check_source
from judgeaudit.analysis.frame import (
    decisive_mask,
    default_bins,
    gap_series,
    labels_for,
    load_pairs,
    open_db,
    stored_labels,
)
from judgeaudit.analysis.report import BOOTSTRAP, ReportOptions, run_header
from judgeaudit.analysis.report_types import Report
from judgeaudit.analysis.review import agreement
from judgeaudit.analysis.split import add_figures
from judgeaudit.analysis.verdicts import missing_by_bucket, verdict_health
from judgeaudit.analysis.why import style_section


def build_report_pandas(out: Path, options: ReportOptions | None = None) -> Report:
    """The same report from the whole frame in pandas (kept as the reference the SQL matches)."""
    options = options or ReportOptions()
    db = open_db(out)
    try:
        header = run_header(db, options)
        run_id, status, manifest = header.run_id, header.status, header.manifest
        pairs = load_pairs(db, run_id)
        labels = stored_labels(db)
        settings = manifest.get("settings", {})
        source = options.gap_source or settings.get("gap_source", "capability")
        check_source(db, run_id, source)
        bins = (
            options.bins
            or (settings.get("bins") if source == settings.get("gap_source") else None)
            or default_bins(source, pairs)
        )
        # From judge_logs, not audit_pairs: the same query serves both reports.
        verdicts = verdict_health(db, run_id)
        missing = (
            missing_by_bucket(db, run_id, source, bins) if verdicts["pairs_without_verdict"] else {}
        )
        # plain dicts from the pandas metrics, in the report's shape (a test holds the two equal)
        report = cast(
            Report, _pandas_report(pairs, labels, options, source, bins, settings, missing)
        )
        report["run_id"], report["status"] = run_id, status
        report["verdicts"], report["manifest"] = verdicts, manifest
        add_figures(report, db, run_id, options.threshold)
        report["style"] = style_section(db, run_id)
    finally:
        db.close()
    return report


def _pandas_report(
    pairs: pd.DataFrame,
    labels: pd.DataFrame,
    options: ReportOptions,
    source: str,
    bins: list[float],
    settings: dict[str, Any],
    missing: dict[int, tuple[int, int]],
) -> dict[str, Any]:
    names = labels_for(
        bins, options.labels or (settings.get("labels") if bins == settings.get("bins") else None)
    )
    decisive = decisive_mask(pairs)
    gap = gap_series(pairs, source)
    buckets = metrics.buckets(pairs, source, bins, names, gap)
    for index, bucket in enumerate(buckets):
        bucket["no_verdict_pairs"], bucket["no_verdict_decisive"] = missing.get(index, (0, 0))
    return {
        "run_id": None,
        "status": None,
        "gap_source": source,
        "bins": bins,
        "pairs": len(pairs),
        "decisive": int(decisive.sum()),
        "misselected": int(pairs["misselected"].fillna(0).sum()),
        "buckets": buckets,
        **metrics.coverage(pairs, source, bins, gap),
        "agent_pairs": metrics.agent_pairs(pairs),
        "satisfied_but_failed": metrics.satisfied_but_failed(pairs, options.threshold),
        "position_bias": metrics.position_bias(pairs),
        "by_task_type": metrics.breakdown(pairs, ["task_type"]),
        "by_models": metrics.breakdown(pairs, ["agent_a", "agent_b", "judge_model"]),
        "human_review": agreement(pairs, labels),
        "verdicts": None,
        "bootstrap": BOOTSTRAP,
        "manifest": None,
    }

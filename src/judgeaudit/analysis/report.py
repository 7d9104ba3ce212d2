"""The report: one dict built from the store, rendered as table, JSON, CSV, Markdown or HTML."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judgeaudit.analysis.aggregate import check_source, report_sections
from judgeaudit.analysis.aggregate import default_bins as default_bins_sql
from judgeaudit.analysis.engines import Pairs
from judgeaudit.analysis.engines.history import kept_style
from judgeaudit.analysis.frame import labels_for, open_db, resolve_run, stored_manifest
from judgeaudit.analysis.report_render import (
    bucket_lines,
    render,
    render_csv,
    render_markdown,
    render_table,
    write_report_files,
)
from judgeaudit.analysis.report_types import Bootstrap, Report
from judgeaudit.analysis.split import add_figures
from judgeaudit.analysis.stats import BOOT_MAX_CLUSTERS, BOOT_RESAMPLES, BOOT_SEED
from judgeaudit.analysis.verdicts import missing_by_bucket, verdict_health
from judgeaudit.analysis.why import style_section
from judgeaudit.score_scale import SATISFIED_AT

BOOTSTRAP: Bootstrap = {
    "method": "task-clustered Poisson bootstrap, percentile (pairs of a task share "
    f"trajectories); above {BOOT_MAX_CLUSTERS} tasks the cluster-robust normal interval",
    "resamples": BOOT_RESAMPLES,
    "seed": BOOT_SEED,
    "cluster": "task_id",
}


@dataclass(frozen=True)
class ReportOptions:
    run_id: str | None = None
    gap_source: str | None = None  # default: the run's declared source
    bins: list[float] | None = None
    labels: list[str] | None = None
    threshold: float = SATISFIED_AT
    #: where the pairs are aggregated: audit.db (sqlite), Parquet on duckdb or spark, or auto
    #: (DuckDB over the run's own Parquet on a large finished run: analysis/engines/auto.py)
    engine: str = "auto"
    parquet: str | None = None  # a file, glob or directory (default OUT/audit_pairs.parquet)
    #: the style model (``report["style"]``); ``compare`` does not show it and skips the fit
    style: bool = True
    #: receives auto's one line naming the engine it took and why (the CLI prints it on stderr)
    note: Callable[[str], None] | None = None


def resolve_buckets(
    db: Pairs | sqlite3.Connection,
    run_id: str,
    manifest: dict[str, Any],
    options: ReportOptions = ReportOptions(),
) -> tuple[str, list[float], list[str]]:
    """(gap source, bin edges, bucket labels): the options, else the run's declared choice, else
    the defaults. The report and the preference export's buckets both come from here."""
    settings = manifest.get("settings", {})
    source = options.gap_source or settings.get("gap_source", "capability")
    check_source(db, run_id, source)  # a gap source that would invert the claim is refused
    bins = (
        options.bins
        or (settings.get("bins") if source == settings.get("gap_source") else None)
        or default_bins_sql(db, run_id, source)
    )
    names = labels_for(
        bins,
        options.labels or (settings.get("labels") if bins == settings.get("bins") else None),
    )
    return source, bins, names


@dataclass(frozen=True)
class RunHeader:
    """What every report of a run opens with, whichever builder computes its figures."""

    run_id: str
    status: str
    manifest: dict[str, Any]


def run_header(db: sqlite3.Connection, options: ReportOptions) -> RunHeader:
    """The run the options name (else the latest), its status and stored manifest."""
    run_id = resolve_run(db, options.run_id)
    manifest, status = db.execute(
        "SELECT manifest, status FROM runs WHERE run_id = ?", (run_id,)
    ).fetchone()
    return RunHeader(run_id, status, stored_manifest(manifest, run_id))


def build_report(out: Path, options: ReportOptions = ReportOptions()) -> Report:
    """The report of a run in ``out``; an unchanged run's is read back from the cache
    (:mod:`judgeaudit.analysis.report_memo`), byte for byte the one computed."""
    from judgeaudit.analysis import report_memo

    memo, kept = report_memo.lookup(out, options)
    if kept is not None:
        return kept
    if memo is not None:
        options = replace(options, note=_recording(memo.notes, options.note))
    report = _build_report(out, options)
    if memo is not None:
        report_memo.keep(memo, out, options, report)
    return report


def _recording(notes: list[str], note: Callable[[str], None] | None) -> Callable[[str], None]:
    def record(line: str) -> None:
        notes.append(line)
        if note is not None:
            note(line)

    return record


def _build_report(out: Path, options: ReportOptions) -> Report:
    db = open_db(out)
    try:
        header = run_header(db, options)
        run_id = header.run_id
        # The pairs' figures on the chosen engine; judge logs, labels, trajectories: audit.db.
        pairs = _open_pairs(db, out, run_id, options)
        try:
            report = _from_pairs(db, pairs, run_id, header.status, header.manifest, options)
        finally:
            pairs.close()
        if options.style:
            report["style"] = kept_style(db, run_id) or style_section(db, run_id)
    finally:
        db.close()
    return report


def _open_pairs(db: sqlite3.Connection, out: Path, run_id: str, options: ReportOptions) -> Pairs:
    """The engine the options name (``auto``: :mod:`judgeaudit.analysis.engines.auto`)."""
    from judgeaudit.analysis.engines.auto import open_engine

    pairs, note = open_engine(options.engine, db, out, run_id, options.parquet)
    if note and options.note is not None:
        options.note(note)
    return pairs


def _from_pairs(
    db: sqlite3.Connection,
    pairs: Pairs,
    run_id: str,
    status: str,
    manifest: dict[str, Any],
    opts: ReportOptions,
) -> Report:
    """Every figure over the pairs, with audit.db's verdict counts and labels."""
    source, bins, names = resolve_buckets(pairs, run_id, manifest, opts)
    # Aggregated in SQL: memory stays flat however many pairs the run holds.
    sections = report_sections(pairs, run_id, source, bins, names, opts.threshold, db)
    verdicts = verdict_health(db, run_id)
    missing = (
        missing_by_bucket(db, run_id, source, bins) if verdicts["pairs_without_verdict"] else {}
    )
    for index, bucket in enumerate(sections["buckets"]):
        bucket["no_verdict_pairs"], bucket["no_verdict_decisive"] = missing.get(index, (0, 0))
    report: Report = {
        "run_id": run_id,
        "status": status,
        "gap_source": source,
        "bins": bins,
        # the sections one by one: the JSON keeps this order
        "pairs": sections["pairs"],
        "decisive": sections["decisive"],
        "misselected": sections["misselected"],
        "buckets": sections["buckets"],
        "no_gap": sections["no_gap"],
        "outside_bins": sections["outside_bins"],
        "agent_pairs": sections["agent_pairs"],
        "satisfied_but_failed": sections["satisfied_but_failed"],
        "position_bias": sections["position_bias"],
        "by_task_type": sections["by_task_type"],
        "by_models": sections["by_models"],
        "human_review": sections["human_review"],
        "verdicts": verdicts,
        "bootstrap": BOOTSTRAP,
        "manifest": manifest,
    }
    add_figures(report, pairs, run_id, opts.threshold)
    return report


def build_report_pandas(out: Path, options: ReportOptions = ReportOptions()) -> Report:
    """The same report from the whole frame in pandas (the reference the SQL matches; in its
    own module so the SQL report imports no pandas)."""
    from judgeaudit.analysis.report_pandas import build_report_pandas as build

    return build(out, options)


# the public names, including those re-exported from the split-out module
__all__ = [
    "BOOTSTRAP",
    "ReportOptions",
    "bucket_lines",
    "build_report",
    "build_report_pandas",
    "render",
    "render_csv",
    "render_markdown",
    "render_table",
    "resolve_buckets",
    "write_report_files",
]

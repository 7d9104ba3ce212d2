"""The report: one dict built from the store, rendered as table, JSON, CSV, Markdown or HTML."""

from __future__ import annotations

import io
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.analysis import metrics
from judgeaudit.analysis.aggregate import check_source, report_sections
from judgeaudit.analysis.aggregate import default_bins as default_bins_sql
from judgeaudit.analysis.chart import bucket_svg
from judgeaudit.analysis.engines import Pairs, open_pairs
from judgeaudit.analysis.fmt import (
    SIMULATED,
    bucket_columns,
    bucket_name,
    review_lines,
    simulated,
    split,
)
from judgeaudit.analysis.fmt import bias as bias_text
from judgeaudit.analysis.frame import (
    GAP_NAMES,
    decisive_mask,
    default_bins,
    gap_series,
    labels_for,
    load_pairs,
    open_db,
    resolve_run,
    stored_manifest,
)
from judgeaudit.analysis.gap_model import model_line
from judgeaudit.analysis.html import render_html
from judgeaudit.analysis.review import agreement
from judgeaudit.analysis.split import add_figures
from judgeaudit.analysis.stats import BOOT_MAX_CLUSTERS, BOOT_RESAMPLES, BOOT_SEED
from judgeaudit.analysis.verdicts import health_line, missing_by_bucket, verdict_health
from judgeaudit.analysis.why import style_section
from judgeaudit.analysis.why_fmt import style_lines, style_markdown
from judgeaudit.credentials import scrub_content
from judgeaudit.fsutil import atomic_write_text

BOOTSTRAP = {
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
    threshold: float = 4.0
    #: where the pairs are aggregated: audit.db (sqlite), or Parquet on duckdb or spark
    engine: str = "sqlite"
    parquet: str | None = None  # a file, glob or directory (default OUT/audit_pairs.parquet)
    #: the style model (``report["style"]``); ``compare`` does not show it and skips the fit
    style: bool = True


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


def build_report(out: Path, options: ReportOptions = ReportOptions()) -> dict[str, Any]:
    db = open_db(out)
    try:
        run_id = resolve_run(db, options.run_id)
        manifest = stored_manifest(
            db.execute("SELECT manifest FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0],
            run_id,
        )
        status = db.execute("SELECT status FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0]
        # The pairs' figures on the chosen engine; judge logs, labels, trajectories: audit.db.
        pairs = open_pairs(options.engine, db, out, options.parquet)
        try:
            report = _from_pairs(db, pairs, run_id, manifest, options)
        finally:
            pairs.close()
        report.update(status=status, manifest=manifest)
        if options.style:
            report["style"] = style_section(db, run_id)
    finally:
        db.close()
    return report


def _from_pairs(
    db: sqlite3.Connection, pairs: Pairs, run_id: str, manifest: dict[str, Any], opts: ReportOptions
) -> dict[str, Any]:
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
    report = {
        "run_id": run_id,
        "status": None,
        "gap_source": source,
        "bins": bins,
        **sections,
        "verdicts": verdicts,
        "bootstrap": BOOTSTRAP,
        "manifest": None,
    }
    add_figures(report, pairs, run_id, opts.threshold)
    return report


def build_report_pandas(out: Path, options: ReportOptions = ReportOptions()) -> dict[str, Any]:
    """The same report from the whole frame in pandas (kept as the reference the SQL matches)."""
    db = open_db(out)
    try:
        run_id = resolve_run(db, options.run_id)
        manifest = stored_manifest(
            db.execute("SELECT manifest FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0],
            run_id,
        )
        status = db.execute("SELECT status FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0]
        pairs = load_pairs(db, run_id)
        labels = pd.read_sql_query("SELECT * FROM human_labels", db)
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
        report = _pandas_report(pairs, labels, options, source, bins, settings, missing)
        report.update(run_id=run_id, status=status, verdicts=verdicts, manifest=manifest)
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


def _pct(value: float | None) -> str:
    return "   n/a" if value is None else f"{value * 100:5.1f}%"


def _ci(row: dict[str, Any]) -> str:
    if row.get("ci_low") is None:
        return "—"
    return f"[{row['ci_low'] * 100:.1f}, {row['ci_high'] * 100:.1f}]"


def _boot(row: dict[str, Any]) -> str:
    if row.get("boot_low") is None:
        return "—"
    return f"[{row['boot_low'] * 100:.1f}, {row['boot_high'] * 100:.1f}]"


def bucket_lines(report: dict[str, Any], bootstrap: bool = False) -> list[str]:
    """The short summary `judgeaudit demo` ends with (the report table adds the bootstrap)."""
    lines = [f"misselection by {GAP_NAMES[report['gap_source']]}, over decisive pairs:"]
    for b in report["buckets"]:
        boot = f"  task-clustered {_boot(b):<14}" if bootstrap else ""
        edges = f"({b['lo']:g}, {b['hi']:g}]"
        lines.append(
            f"  {bucket_columns(b)} {edges:<14}"
            f"{_pct(b['rate'])}  95% CI {_ci(b):<14}{boot} n={b['decisive']}"
        )
        if b.get("decisive") and "tie_aware_ci" in b:
            lines.append(f"{'':<29}{split(b)}")
    overall = report.get("overall")
    if overall:
        lines.append(
            f"  {'all':<12} {'':<14}{_pct(overall['rate'])}  95% CI {_ci(overall):<14}"
            f"{' ' * len(f'  task-clustered {_boot({}):<14}') if bootstrap else ''}"
            f" n={overall['decisive']}"
        )
        lines.append(f"{'':<29}{split(overall)}")
    if report.get("gap_model"):
        lines.append(model_line(report["gap_model"]))
    if bootstrap:
        boot = report.get("bootstrap", {})
        lines.append(
            "  (95% CI: Wilson with a design effect for task clustering, per row, not "
            f"simultaneous; task-clustered: percentile bootstrap, {boot.get('resamples')} "
            f"resamples of whole tasks, seed {boot.get('seed')}, undercovers with few events; "
            "tie-aware = (wrong + tie/2) / decisive)"
        )
    left_out = [
        f"{report[key]} pairs {what}"
        for key, what in (("outside_bins", "outside the bins"), ("no_gap", "without a gap"))
        if report.get(key)
    ]
    if left_out:
        lines.append(f"  not in any bucket: {', '.join(left_out)}")
    sbf = report["satisfied_but_failed"]
    for who in ("judge", "user_simulator"):
        part = sbf[who]
        unit = {"judge": "judged sides", "user_simulator": "conversations"}[who]
        lines.append(
            f"  failed although {who.replace('_', ' ')} satisfied: {_pct(part['rate'])} "
            f"({part['failed']}/{part['satisfied']} {unit}) 95% CI {_ci(part)}"
        )
    return lines


def render_table(report: dict[str, Any]) -> str:
    lines = [
        f"run {report['run_id']} ({report['status']}): {report['pairs']} pairs, "
        f"{report['decisive']} decisive, {report['misselected']} misselected",
        health_line(report["verdicts"]),
        "",
    ]
    if simulated(report):
        lines[1:1] = [SIMULATED]
    lines += bucket_lines(report, bootstrap=True)
    lines += ["", "agent pairs:"]
    for p in report["agent_pairs"]:
        flag = {
            "misselected": "  RANKING MISSELECTED",
            "suggestive": "  ranking opposite "
            f"(suggestive: success p={p.get('success_p_value', 1):.2g}, judge sign-test "
            f"p={p.get('judge_sign_p_value', 1):.2g})",
        }.get(p.get("ranking") or "", "")
        lines.append(
            f"  {p['agent_a']} vs {p['agent_b']}: success {p['success_rate_a']:.2f}/"
            f"{p['success_rate_b']:.2f}, judge wins {p['judge_win_rate_a']:.2f}/"
            f"{p['judge_win_rate_b']:.2f}, misselected {_pct(p['rate'])} {_ci(p)} "
            f"n={p['decisive']}{flag}"
        )
        if p.get("decisive"):
            lines.append(f"      {split(p)}")
    lines += ["", "position bias:"]
    for pb in report["position_bias"]:
        lines.append(f"  {bias_text(pb)}")
    lines.append(
        "  (orders without a verdict left out; intervals: Wilson with a task design effect; "
        "p: exact two-sided binomial test against 50% on the design-effect-adjusted counts)"
    )
    lines += ["", "judge verdicts (an order without a parsable verdict counts as a tie):"]
    for j in report["verdicts"]["by_judge"]:
        lines.append(
            f"  {j['judge_model']}: no verdict {_pct(j['no_verdict_rate'])} of orders "
            f"({j['no_verdict_orders']}/{j['orders']}), parse failures "
            f"{j['parse_failures']}/{j['judge_calls']} calls"
        )
    lines += ["", "by task type:"]
    for t in report["by_task_type"]:
        lines.append(
            f"  {t['task_type']:<24} misselected {_pct(t['rate'])} {_ci(t)} n={t['decisive']}"
        )
    if "style" in report:
        lines += ["", *style_lines(report["style"])]
    lines += ["", *review_lines(report["human_review"])]
    return "\n".join(lines)


def render_markdown(report: dict[str, Any]) -> str:
    out = [
        f"# judgeaudit report — {report['run_id']}",
        "",
        f"Gap source: `{report['gap_source']}`; {report['pairs']} pairs, "
        f"{report['decisive']} decisive.",
        *(["", f"> **{SIMULATED}**"] if simulated(report) else []),
        "",
        health_line(report["verdicts"]),
        "",
        "| bucket | gap | decisive | right | wrong (misselected) | tie | rate | 95% CI |"
        " tie-aware rate | 95% CI | decisive without verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rows = [(bucket_name(b, paren=True), f"({b['lo']:g}, {b['hi']:g}]", b)
            for b in report["buckets"]]  # fmt: skip
    if report.get("overall"):
        rows.append(("all", "", {**report["overall"], "no_verdict_decisive": ""}))
    for label, edges, b in rows:
        low, high = b.get("tie_aware_ci") or (None, None)
        out.append(
            f"| {label} | {edges} | {b['decisive']} | {b.get('right', '')} | "
            f"{b.get('wrong', b.get('misselected'))} | {b.get('tie', '')} | "
            f"{_pct(b['rate']).strip()} | {_ci(b)} | {_pct(b.get('tie_aware_rate')).strip()} | "
            f"{_ci({'ci_low': low, 'ci_high': high})} | {b.get('no_verdict_decisive', 0)} |"
        )
    sbf = report["satisfied_but_failed"]
    judge, user = sbf["judge"], sbf["user_simulator"]
    out += [
        "",
        f"Intervals: {report.get('intervals', 'Wilson')}. Tie-aware rate: "
        "(wrong + tie / 2) / decisive.",
        "",
        f"Failed although judge satisfied (score ≥ {sbf['threshold']:g}): "
        f"{_pct(judge['rate']).strip()} ({judge['failed']}/{judge['satisfied']} judged sides), "
        f"95% CI {_ci(judge)}",
        f"Failed although user simulator satisfied: {_pct(user['rate']).strip()} "
        f"({user['failed']}/{user['satisfied']} conversations), 95% CI {_ci(user)}",
        "",
        *[f"Position bias — {bias_text(pb)}" for pb in report["position_bias"]],
        "",
        model_line(report.get("gap_model")).strip(),
        "",
        *(style_markdown(report["style"]) if "style" in report else []),
        "```",
        *review_lines(report["human_review"]),
        "```",
    ]
    return "\n".join(out) + "\n"


def render_csv(report: dict[str, Any]) -> str:
    buffer = io.StringIO()
    rows = []
    for bucket in report["buckets"]:
        row = {k: v for k, v in bucket.items() if k != "tie_aware_ci"}
        low, high = bucket.get("tie_aware_ci") or (None, None)
        rows.append({**row, "tie_aware_ci_low": low, "tie_aware_ci_high": high})
    pd.DataFrame(rows).to_csv(buffer, index=False)
    return buffer.getvalue()


def render(report: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report, ensure_ascii=False, indent=2, default=str)
    if fmt == "csv":
        return render_csv(report)
    if fmt == "md":
        return render_markdown(report)
    if fmt == "html":
        return render_html(report, bucket_svg(report["buckets"], _chart_title(report)))
    return render_table(report)


def _chart_title(report: dict[str, Any]) -> str:
    return f"Misselection by {report['gap_source']} gap (95% Wilson CI) — {report['run_id']}"


def write_report_files(out: Path, report: dict[str, Any]) -> list[Path]:
    """``OUT/report.html`` and ``OUT/misselection.svg``, written atomically."""
    svg = bucket_svg(report["buckets"], _chart_title(report))
    atomic_write_text(out / "misselection.svg", svg)
    atomic_write_text(out / "report.html", scrub_content(render_html(report, svg)))
    return [out / "report.html", out / "misselection.svg"]

"""The report's renderers: the dict build_report returns, as table, Markdown, CSV, JSON or HTML."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from judgeaudit import csvsafe
from judgeaudit.analysis.chart import bucket_svg
from judgeaudit.analysis.fmt import (
    NO_SIMULATOR,
    NO_SWAPPED,
    SHARES,
    SIMULATED,
    TASK_WILSON,
    bracket,
    bucket_columns,
    bucket_edges,
    bucket_name,
    no_simulator,
    review_lines,
    share,
    share_intervals,
    simulated,
    split,
    verdict_line,
)
from judgeaudit.analysis.fmt import bias as bias_text
from judgeaudit.analysis.frame import GAP_NAMES
from judgeaudit.analysis.gap_model import model_line
from judgeaudit.analysis.html import overall_row, render_html
from judgeaudit.analysis.report_types import SHARE_NAMES, Report
from judgeaudit.analysis.unfinished import run_status
from judgeaudit.analysis.verdicts import health_line, misselected_text
from judgeaudit.analysis.why_fmt import style_lines, style_markdown
from judgeaudit.audit.spec.records import recorded_verdicts
from judgeaudit.credentials import scrub_content
from judgeaudit.fsutil import atomic_write_text
from judgeaudit.runfiles import CHART_SVG as CHART_SVG  # re-exported: the old import path
from judgeaudit.runfiles import REPORT_HTML as REPORT_HTML


def _pct(value: float | None) -> str:
    return "   n/a" if value is None else f"{value * 100:5.1f}%"


def _ci(row: Mapping[str, Any]) -> str:
    return bracket([row.get("ci_low"), row.get("ci_high")])


def _boot(row: Mapping[str, Any]) -> str:
    return bracket([row.get("boot_low"), row.get("boot_high")])


def boot_method(report: Report) -> str:
    """The task-clustered interval's method, as every output names it."""
    method: Mapping[str, Any] = report.get("bootstrap", {})
    return (
        f"percentile bootstrap, {method.get('resamples')} resamples of whole tasks, seed "
        f"{method.get('seed')}, undercovers with few events"
    )


def bucket_lines(report: Report, bootstrap: bool = False) -> list[str]:
    """The short summary `judgeaudit demo` ends with (the report table adds the bootstrap)."""
    lines = [f"misselection by {GAP_NAMES[report['gap_source']]}, over decisive pairs:"]
    for b in report["buckets"]:
        boot = f"  task-clustered {_boot(b):<14}" if bootstrap else ""
        edges = bucket_edges(b)
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
    boot_said = f"task-clustered: {boot_method(report)}; " if bootstrap else ""
    lines.append(
        "  (95% CI: Wilson with a design effect for task clustering, per row, not "
        f"simultaneous; {boot_said}tie-aware = (wrong + tie/2) / decisive)"
    )
    left_out = [
        f"{count} pairs {what}"
        for count, what in (
            (report.get("outside_bins"), "outside the bins"),
            (report.get("no_gap"), "without a gap"),
        )
        if count
    ]
    if left_out:
        lines.append(f"  not in any bucket: {', '.join(left_out)}")
    sbf = report["satisfied_but_failed"]
    for who in ("judge", "user_simulator"):
        part = sbf[who]
        unit = {"judge": "judged sides", "user_simulator": "conversations"}[who]
        if who == "user_simulator" and no_simulator(report):
            lines.append(f"  failed although user simulator satisfied: n/a ({NO_SIMULATOR})")
            continue
        lines.append(
            f"  failed although {who.replace('_', ' ')} satisfied: {_pct(part['rate'])} "
            f"({part['failed']}/{part['satisfied']} {unit}) 95% CI {_ci(part)}, {TASK_WILSON}"
        )
        if who == "judge" and "scale_note" in sbf:
            lines.append(f"    WARNING: {sbf['scale_note']}")
    return lines


def ranking_flag(p: Mapping[str, Any]) -> str:
    """An agent pair's ranking flag as the text and Markdown reports print it ("" when none)."""
    return {
        "misselected": "RANKING MISSELECTED",
        "suggestive": "ranking opposite "
        f"(suggestive: success p={p.get('success_p_value', 1):.2g}, judge sign-test "
        f"p={p.get('judge_sign_p_value', 1):.2g})",
    }.get(p.get("ranking") or "", "")


def render_table(report: Report) -> str:
    lines = [
        f"run {report['run_id']} ({report['status']}): {report['pairs']} pairs, "
        f"{report['decisive']} decisive, "
        f"{misselected_text(report['misselected'], report['verdicts'])}",
        health_line(report["verdicts"], recorded=recorded_verdicts(report["manifest"])),
        "",
    ]
    if simulated(report):
        lines[1:1] = [SIMULATED]
    lines += bucket_lines(report, bootstrap=True)
    lines += ["", f"agent pairs ({SHARES}; intervals: Wilson with a task design effect):"]
    for p in report["agent_pairs"]:
        flag = f"  {ranking_flag(p)}" if ranking_flag(p) else ""
        lines.append(
            f"  {p['agent_a']} vs {p['agent_b']}: success {p['success_rate_a']:.2f}/"
            f"{p['success_rate_b']:.2f}, judge wins {p['judge_win_rate_a']:.2f}/"
            f"{p['judge_win_rate_b']:.2f}, misselected {_pct(p['rate'])} {_ci(p)} "
            f"n={p['decisive']}{flag}"
        )
        if "success_rate_a_ci" in p:
            lines.append(f"      95% CI {share_intervals(p)} (of {p['pairs']} pairs)")
        if p.get("decisive"):
            lines.append(f"      {split(p)}")
    lines += ["", "position bias:"]
    for pb in report["position_bias"]:
        lines.append(f"  {bias_text(pb)}")
    if not report["position_bias"]:
        lines.append(f"  {NO_SWAPPED}")
    lines.append(
        "  (orders without a verdict left out; intervals: Wilson with a task design effect; "
        "p: exact two-sided binomial test against 50% on the design-effect-adjusted counts)"
    )
    lines += [
        "",
        "judge verdicts (an order without a parsable verdict counts as a tie; intervals over "
        f"orders: {TASK_WILSON}):",
    ]
    recorded = recorded_verdicts(report["manifest"])
    for j in report["verdicts"]["by_judge"]:
        lines.append(f"  {verdict_line(j, recorded)}")
    lines += ["", f"by task type (intervals: {TASK_WILSON}):"]
    for t in report["by_task_type"]:
        lines.append(
            f"  {t['task_type']:<24} misselected {_pct(t['rate'])} {_ci(t)} n={t['decisive']}"
        )
    if "style" in report:
        lines += ["", *style_lines(report["style"])]
    lines += ["", *review_lines(report["human_review"])]
    return "\n".join(lines)


def render_markdown(report: Report) -> str:
    out = [
        f"# judgeaudit report — {report['run_id']}",
        "",
        f"Gap source: `{report['gap_source']}`; {report['pairs']} pairs, "
        f"{report['decisive']} decisive.",
        *(["", f"> **{SIMULATED}**"] if simulated(report) else []),
        "",
        health_line(report["verdicts"], recorded=recorded_verdicts(report["manifest"])),
        "",
        "| bucket | gap | pairs | decisive | right | wrong (misselected) | tie | rate | 95% CI |"
        " task-clustered | tie-aware rate | 95% CI | decisive without verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rows: list[tuple[str, str, Mapping[str, Any]]] = [
        (bucket_name(b, paren=True), bucket_edges(b), b) for b in report["buckets"]
    ]
    if report.get("overall"):
        rows.append(
            ("all", "", {"pairs": report["pairs"], **report["overall"], "no_verdict_decisive": ""})
        )
    for label, edges, b in rows:
        low, high = b.get("tie_aware_ci") or (None, None)
        out.append(
            f"| {label} | {edges} | {b.get('pairs', '')} | {b['decisive']} | "
            f"{b.get('right', '')} | {b.get('wrong', b.get('misselected'))} | {b.get('tie', '')} | "
            f"{_pct(b['rate']).strip()} | {_ci(b)} | {_boot(b) if label != 'all' else ''} | "
            f"{_pct(b.get('tie_aware_rate')).strip()} | "
            f"{_ci({'ci_low': low, 'ci_high': high})} | {b.get('no_verdict_decisive', 0)} |"
        )
    sbf = report["satisfied_but_failed"]
    judge, user = sbf["judge"], sbf["user_simulator"]
    out += [
        "",
        f"Intervals: {report.get('intervals', 'Wilson')}. Task-clustered: {boot_method(report)}."
        " Tie-aware rate: (wrong + tie / 2) / decisive.",
        "",
        f"Failed although judge satisfied (score ≥ {sbf['threshold']:g}): "
        f"{_pct(judge['rate']).strip()} ({judge['failed']}/{judge['satisfied']} judged sides), "
        f"95% CI {_ci(judge)}" + (f". WARNING: {sbf['scale_note']}" if "scale_note" in sbf else ""),
        f"Failed although user simulator satisfied: n/a ({NO_SIMULATOR})"
        if no_simulator(report)
        else f"Failed although user simulator satisfied: {_pct(user['rate']).strip()} "
        f"({user['failed']}/{user['satisfied']} conversations), 95% CI {_ci(user)}",
        "",
        *[f"Position bias — {bias_text(pb)}" for pb in report["position_bias"]],
        *([] if report["position_bias"] else [f"Position bias — {NO_SWAPPED}"]),
        "",
        model_line(report.get("gap_model")).strip(),
        "",
        *_markdown_pairs_and_types(report),
        *(style_markdown(report["style"]) if "style" in report else []),
        "```",
        *review_lines(report["human_review"]),
        "```",
    ]
    return "\n".join(out) + "\n"


def _cell(name: object) -> str:
    """A name in a Markdown table cell: a ``|`` in it would end the cell."""
    return str(name).replace("|", "\\|")


def _markdown_pairs_and_types(report: Report) -> list[str]:
    """The agent pairs (with their ranking flags) and the task types, as the text report has
    them."""
    out = [
        "## Agent pairs",
        "",
        f"{SHARES[0].upper()}{SHARES[1:]}; 95% CI in brackets (Wilson with a task design effect).",
        "",
        "| agent A | agent B | pairs | success A | success B | judge wins A | judge wins B |"
        " decisive | misselected | 95% CI | ranking |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in report["agent_pairs"]:
        shares = " | ".join(share(p, name) for name in SHARE_NAMES)
        out.append(
            f"| {_cell(p['agent_a'])} | {_cell(p['agent_b'])} | {p['pairs']} | {shares} | "
            f"{p['decisive']} | {_pct(p['rate']).strip()} | {_ci(p)} | "
            f"{ranking_flag(p) or 'ok'} |"
        )
    out += ["", "## By task type", "", "| task type | decisive | misselected | 95% CI |"]
    out.append("|---|---|---|---|")
    for t in report["by_task_type"]:
        out.append(
            f"| {_cell(t['task_type'])} | {t['decisive']} | {_pct(t['rate']).strip()} | {_ci(t)} |"
        )
    return [*out, ""]


def render_csv(report: Report) -> str:
    """One row per bucket, then the overall row; the last columns name the interval methods
    (``ci_method`` for ``ci_*`` and ``tie_aware_ci_*``, ``boot_method`` for ``boot_*``), in the
    words the Markdown report uses."""
    buffer = io.StringIO()
    rows = []
    overall = overall_row(report)  # the overall rate was missing from the CSV
    methods = {"ci_method": report.get("intervals", "Wilson"), "boot_method": boot_method(report)}
    for bucket in [*report["buckets"], *([overall] if overall else [])]:
        row = {k: v for k, v in bucket.items() if k != "tie_aware_ci"}
        low, high = bucket.get("tie_aware_ci") or (None, None)
        named = methods if "boot_low" in bucket else {"ci_method": methods["ci_method"]}
        rows.append({**row, "tie_aware_ci_low": low, "tie_aware_ci_high": high, **named})
    columns = list(dict.fromkeys(k for row in rows for k in row))  # the buckets' order first
    writer = csvsafe.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()  # a value a row lacks (the overall row's bucket bounds) is empty
    writer.writerows({k: "" if v is None else v for k, v in row.items()} for row in rows)
    return buffer.getvalue()


def render(report: Report, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report, ensure_ascii=False, indent=2, default=str)
    if fmt == "csv":
        return render_csv(report)
    if fmt == "md":
        return render_markdown(report)
    if fmt == "html":
        return render_html(report, bucket_svg(report["buckets"], _chart_title(report)))
    return render_table(report)


def _chart_title(report: Report) -> str:
    return f"Misselection by {report['gap_source']} gap (95% Wilson CI) — {report['run_id']}"


def write_report_files(out: Path, report: Report, *, holding: bool = False) -> list[Path]:
    """``OUT/report.html`` and ``OUT/misselection.svg``, written atomically. ``holding``: the
    caller holds OUT's lock (a label import, ``export files``), so a run marked running is
    one that was stopped and reads "stopped", as ``report`` and the app say (it read
    "(running)")."""
    report = report.copy()
    report["status"] = run_status(out, report["status"], holding=holding)
    svg = bucket_svg(report["buckets"], _chart_title(report))
    atomic_write_text(out / CHART_SVG, svg)
    atomic_write_text(out / REPORT_HTML, scrub_content(render_html(report, svg)))
    return [out / REPORT_HTML, out / CHART_SVG]

"""A self-contained HTML report: inline CSS and SVG, no scripts, no network."""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from typing import Any

from judgeaudit.analysis.fmt import (
    NO_SIMULATOR,
    NO_SWAPPED,
    SHARES,
    SIMULATED,
    bracket,
    bucket_edges,
    bucket_name,
    ci,
    kappa,
    no_simulator,
    pct,
    review_lines,
    share_pair,
    simulated,
    tested,
    tie_tie,
    with_ci,
)
from judgeaudit.analysis.gap_model import model_line
from judgeaudit.analysis.report_types import Report
from judgeaudit.analysis.verdicts import health_line, misselected_text
from judgeaudit.analysis.why_fmt import forest_svg, headline, style_lines
from judgeaudit.audit.spec.records import recorded_verdicts

STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:4px 8px;
text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
.note{color:#666;font-size:90%}pre{background:#f7f7f7;padding:1rem;overflow:auto;font-size:80%}
.warn{color:#a00}
"""


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _verdicts(health: dict[str, Any], recorded: bool) -> str:
    """Missing verdicts per judge, in red above the chart when they exceed the gate's limit."""
    table = _table(
        ["judge model", "orders", "no verdict", "rate", "95% CI"]
        + (
            ["recorded verdicts", "null or unparsable"]
            if recorded
            else ["judge calls", "parse failures"]
        ),
        [
            [
                j["judge_model"],
                j["orders"],
                j["no_verdict_orders"],
                pct(j["no_verdict_rate"]),
                bracket(j.get("no_verdict_rate_ci")),
                j["judge_calls"],
                j["parse_failures"],
            ]
            for j in health["by_judge"]
        ],
    )
    rate = health["no_verdict_rate"]
    css = "warn" if rate is not None and rate > health["max_no_verdict_rate"] else "note"
    return f"<p class='{css}'>{escape(health_line(health, recorded=recorded))}</p>{table}"


def overall_row(report: Report) -> Mapping[str, Any] | None:
    """The overall row under the bucket table (all decisive pairs): the HTML and CSV reports."""
    overall = report.get("overall")
    if not overall:
        return None
    verdicts = report.get("verdicts") or {}
    return {"label": "all", "alias": "overall", "lo": None, "hi": None, "pairs": report["pairs"],
            "misselected": overall["wrong"], **overall,
            "no_verdict_pairs": verdicts.get("pairs_without_verdict"),
            "no_verdict_decisive": verdicts.get("decisive_pairs_without_verdict")}  # fmt: skip


def _split_cells(row: Mapping[str, Any]) -> list[str]:
    if "tie_aware_ci" not in row:
        return ["", ""]
    low, high = row["tie_aware_ci"] or (None, None)
    return [
        f"{row['right']} / {row['wrong']} / {row['tie']}",
        f"{pct(row['tie_aware_rate'])} {ci({'ci_low': low, 'ci_high': high})}",
    ]


def render_html(report: Report, svg: str) -> str:
    buckets = _table(
        [
            "bucket",
            "gap",
            "pairs",
            "decisive",
            "misselected",
            "rate",
            "95% CI",
            "task-clustered bootstrap 95% CI",
            "right / wrong / tie",
            "tie-aware rate",
        ],
        [
            [
                bucket_name(b, paren=True),
                bucket_edges(b),
                b["pairs"],
                b["decisive"],
                b["misselected"],
                pct(b["rate"]),
                ci(b),
                ci({"ci_low": b.get("boot_low"), "ci_high": b.get("boot_high")}),
                *_split_cells(b),
            ]
            for b in [*report["buckets"], overall_row(report)]
            if b
        ],
    )
    agents = _table(
        [
            "agent pair",
            "pairs",
            "success A / B [95% CI]",
            "judge wins A / B [95% CI]",
            "decisive",
            "misselected",
            "rate",
            "95% CI",
            "right / wrong / tie",
            "tie-aware rate",
            "ranking",
        ],
        [
            [
                f"{p['agent_a']} vs {p['agent_b']}",
                p["pairs"],
                share_pair(p, "success_rate"),
                share_pair(p, "judge_win_rate"),
                p["decisive"],
                p["misselected"],
                pct(p["rate"]),
                ci(p),
                *_split_cells(p),
                {"misselected": "MISSELECTED", "suggestive": "opposite (suggestive)"}.get(
                    p.get("ranking") or "", "ok"
                ),
            ]
            for p in report["agent_pairs"]
        ],
    )
    sbf = report["satisfied_but_failed"]
    satisfied = _table(
        ["who was satisfied", "satisfied", "task failed", "P(failed | satisfied)", "95% CI"],
        [
            [
                f"judge (score ≥ {sbf['threshold']:g}), per judged side"
                + (f" (WARNING: {sbf['scale_note']})" if "scale_note" in sbf else ""),
                sbf["judge"]["satisfied"],
                sbf["judge"]["failed"],
                pct(sbf["judge"]["rate"]),
                ci(sbf["judge"]),
            ],
            [
                "user simulator (<finished>), per conversation"
                + (f" ({NO_SIMULATOR})" if no_simulator(report) else ""),
                sbf["user_simulator"]["satisfied"],
                sbf["user_simulator"]["failed"],
                pct(sbf["user_simulator"]["rate"]),
                ci(sbf["user_simulator"]),
            ],
        ],
    )
    bias = _table(
        [
            "judge model",
            "pairs",
            "swap-consistent",
            "unparsed orders (left out)",
            "first position wins, of decided orders",
            "real order disagreements won by the first position",
        ],
        [
            [
                b["judge_model"],
                b["pairs"],
                f"{pct(b['consistency_rate'])} {bracket(b.get('consistency_rate_ci'))}{tie_tie(b)}",
                b.get("unparsed_orders", 0),
                tested(b.get("first_position_win_rate"), "first_position_wins", "decided_orders"),
                tested(b.get("flips_won_by_first"), "won_by_first", "order_disagreements"),
            ]
            for b in report["position_bias"]
        ],
    )
    tasks = _table(
        ["task type", "pairs", "decisive", "misselected", "rate", "95% CI"],
        [
            [t["task_type"], t["pairs"], t["decisive"], t["misselected"], pct(t["rate"]), ci(t)]
            for t in report["by_task_type"]
        ],
    )
    verdicts = _verdicts(report["verdicts"], recorded_verdicts(report["manifest"]))
    review = report.get("human_review", {})
    review_html = "<p class='note'>No human labels yet (`judgeaudit review export/import`).</p>"
    if review.get("labelled"):
        rows = [
            [
                name.replace("_", " "),
                part["n"],
                with_ci(part["agreement"], part.get("agreement_ci"), none="[no CI]"),
                kappa(part["kappa"], part.get("kappa_ci"), "[no CI]"),
            ]
            for name in ("judge_vs_human", "success_check_vs_human")
            if isinstance(part := review.get(name), dict)
        ]
        review_html = _table(
            ["comparison", "n", "agreement [95% CI]", "Cohen's kappa [95% CI]"], rows
        )
        review_html += f"<pre>{escape(chr(10).join(review_lines(review)[1:]))}</pre>"
    manifest = escape(json.dumps(report["manifest"], ensure_ascii=False, indent=2))
    banner = f"<p class='warn'>{escape(SIMULATED)}</p>" if simulated(report) else ""
    why = _why(report)
    missel = misselected_text(report["misselected"], report["verdicts"])
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>judgeaudit — {escape(report["run_id"])}</title>
<style>{STYLE}</style></head><body>
<h1>judgeaudit report</h1>
<p>Run <b>{escape(report["run_id"])}</b> ({escape(report["status"])}): {report["pairs"]} pairs,
{report["decisive"]} decisive (exactly one agent succeeded), {escape(missel)}.
Gap source: <code>{escape(report["gap_source"])}</code>.</p>{banner}
{verdicts}
{svg}
<h2>Misselection by gap bucket</h2>{buckets}
<p>{escape(model_line(report.get("gap_model")).strip())}</p>
<p class='note'>95% CI: {escape(str(report.get("intervals", "Wilson")))}. Tie-aware rate:
(wrong + tie / 2) / decisive.</p>
<h2>Agent pairs</h2>{agents}<p class='note'>{escape(SHARES[0].upper() + SHARES[1:])}.</p>
<h2>Satisfied but failed</h2>{satisfied}
<h2>Position bias</h2>{bias if report["position_bias"] else f"<p class='note'>{escape(NO_SWAPPED)}</p>"}
<h2>By task type</h2>{tasks}
{why}
<h2>Human review</h2>{review_html}
<h2>Manifest</h2><pre>{manifest}</pre>
</body></html>
"""


def _why(report: Report) -> str:
    """What moves this judge: the forest plot of the style model's odds ratios and its lines."""
    style = report.get("style")
    if not style:
        return ""
    if style.get("status") != "ok":
        return f"<h2>What moves this judge</h2><p class='note'>{escape(headline(style))}</p>"
    plot = forest_svg(
        style, f"Odds ratio of being preferred (95% CI, task-clustered) — {report['run_id']}"
    )
    return (
        f"<h2>What moves this judge</h2><p>{escape(headline(style))}</p>{plot}"
        f"<pre>{escape(chr(10).join(style_lines(style)[2:]))}</pre>"
    )

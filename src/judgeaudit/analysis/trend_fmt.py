"""The trend as a table, JSON, CSV, or a self-contained HTML page of line charts (inline SVG,
the report page's style: no script, no network)."""

from __future__ import annotations

import io
import json
from html import escape
from typing import Any

from judgeaudit import csvsafe
from judgeaudit.analysis.fmt import pct, with_interval
from judgeaudit.analysis.html import STYLE
from judgeaudit.analysis.trend import interval_method
from judgeaudit.analysis.trend_axis import from_daily_files
from judgeaudit.analysis.trend_metrics import (
    NO_VERDICT,
    TIE_AWARE,
    alert_series,
    is_odds,
    no_interval_note,
    series,
)
from judgeaudit.analysis.trend_svg import line_svg


def alert_line(a: dict[str, Any]) -> str:
    low, high = a["rise_ci"]
    changed = "; ".join(
        f"{k.replace('_', ' ')}: {', '.join(map(str, v['baseline'])) or '-'} -> "
        f"{v['now'] if isinstance(v['now'], str) else ', '.join(map(str, v['now'])) or '-'}"
        for k, v in a["changes"].items()
    )
    return (
        f"ALERT {a['period']}: {a['metric']} ({a['bucket']}"
        + ("; a tie counts half a loss" if a["metric"] == TIE_AWARE else "")
        + f") {pct(a['rate'])} vs baseline "
        f"{pct(a['baseline_rate'])}: +{a['rise'] * 100:.1f} pts, 95% CI "
        f"[{low * 100:+.1f}, {high * 100:+.1f}], Holm p={a['p_adjusted']:.2g}"
        + (f"; changed since baseline: {changed}" if changed else "; manifest unchanged")
    )


def alert_label(a: dict[str, Any]) -> str:
    """Where an alert rose: its bucket, ``all tie-aware`` for the tie-aware rate's (a tie
    counting half a loss), so it never reads as the overall misselection's ``all``."""
    return f"{a['bucket']} tie-aware" if a.get("metric") == TIE_AWARE else str(a["bucket"])


def chart_alerts(trend: dict[str, Any]) -> dict[str, set[str]]:
    """:func:`judgeaudit.analysis.trend.series` metric -> the periods alerted on it: a
    tie-aware alert marks the tie-aware chart, not the misselection chart its bucket ``all``
    named (the app's charts and the HTML page)."""
    marked: dict[str, set[str]] = {}
    for a in trend.get("alerts", []):
        marked.setdefault(alert_series(a), set()).add(a["period"])
    return marked


def ties_cell(part: dict[str, Any]) -> str:
    """A period's ties over its decisive pairs, ``10/56``: the count with what it is of."""
    if part.get("not_measured") or part.get("tie") is None or not part.get("decisive"):
        return "n/a"
    return f"{part['tie']}/{part['decisive']}"


def tie_tie_cell(part: dict[str, Any]) -> str:
    """A period's consistent pairs that were tie/tie, ``20/20``: two ties agree, so an
    always-tie judge is 100% consistent having decided nothing (position.agreement)."""
    if "both_tie" not in part or part.get("consistent") is None or part.get("not_measured"):
        return "n/a"  # a judge outage: no order agreed, its consistency is not measured
    return f"{part['both_tie']}/{part['consistent']}"


def side_named_cell(part: dict[str, Any]) -> str:
    """The consistency where an order named a side, ``not measured`` over no such pair."""
    if "decided_pairs" not in part:
        return "n/a"
    if not part["decided_pairs"]:
        return "not measured"
    low, high = part.get("decided_consistency_rate_ci") or (None, None)
    return with_interval({"rate": part["decided_consistency_rate"], "ci_low": low, "ci_high": high})


def no_alert(detector: dict[str, Any]) -> str:
    """What a trend without an alert says: whether anything was tested at all."""
    return "no alert" if detector.get("tests") else "no alert tested"


def daily_lines(trend: dict[str, Any], files: bool = True, refused: bool = True) -> list[str]:
    """What a folder of daily files adds below the table (``trend["daily"]``, from
    :mod:`judgeaudit.daily`): pairs left out per period, re-audited, refused and ignored files
    (``files=False``: not those two, which stderr says beside a table printed to stdout;
    ``refused=False``: not the refused days, which the HTML page lists in its own section)."""
    lines = [
        f"{p['period']}: {p['pairs_without_verdict']} pair(s) without a recorded verdict left "
        "out (judged pairs only)"
        for p in trend["periods"]
        if p.get("pairs_without_verdict")
    ]
    lines += [
        f"{p['period']}: {p['verdicts_contradicting']} recorded verdict(s) whose winner "
        "contradicts its own scores, kept as recorded (the day's import names each)"
        for p in trend["periods"]
        if p.get("verdicts_contradicting")
    ]
    daily = trend.get("daily", {})
    if daily.get("reaudited"):
        lines.append(
            "re-audited (the file changed since its audit; the earlier audit kept in the work "
            "folder's .replaced/): " + ", ".join(daily["reaudited"])
        )
    # a re-audit's dropped labels are on stderr already when the table goes to stdout
    lines += [carried_line(c, dropped=files) for c in daily.get("labels", [])]
    if not files:
        return lines
    lines += [
        f"REFUSED {r['period']} (not in the series): {r['reason']}"
        for r in (daily.get("refused", []) if refused else [])
    ]
    lines += [f"ignored {i['file']}: {i['reason']}" for i in daily.get("ignored", [])]
    lines += [missing_line(m) for m in daily.get("missing", [])]
    return lines


def missing_line(missing: dict[str, str]) -> str:
    """A day between a daily folder's first and last file that has none, or between a Parquet
    history's first and last period (the table, stderr)."""
    if "history" in missing:
        return (f"no period {missing['period']} in the history {missing['history']} (never "
                "imported): a gap in the series")  # fmt: skip
    return f"no file for day {missing['period']} in {missing['folder']}: a gap in the series"


def carried_line(labels: dict[str, Any], dropped: bool = True) -> str:
    """A re-audited day's human labels: how many were carried, and (``dropped``) each one not
    carried and why."""
    line = f"{labels['period']}: {labels['carried']} human label(s) carried into its re-audit"
    if labels["dropped"] and not dropped:
        return line + f"; {len(labels['dropped'])} not carried (named on stderr)"
    return line + (f"; {dropped_part(labels)}" if labels["dropped"] else "")


def dropped_part(labels: dict[str, Any]) -> str:
    """The labels a re-audit did not carry, each with why, and where they all stay."""
    each = "; ".join(f"{d['pair_id']}: {d['reason']}" for d in labels["dropped"])
    return (
        f"{len(labels['dropped'])} not carried ({each}); every label stays in {labels['kept_in']}"
    )


def render_table(trend: dict[str, Any], files: bool = True, refused: bool = True) -> str:
    """The table; ``files``: with the refused and ignored daily files, ``refused``: with the
    refused days among them (:func:`daily_lines`)."""
    periods = trend["periods"]
    near = periods[0]["buckets"][0]["label"] if periods and periods[0]["buckets"] else "near"
    headers = ["period", "misselection [95% CI]", f"{near} [95% CI]", "ties/decisive", "judge sbf",
               "user sbf", "no verdict", "consistent", "tie/tie of consistent",
               "consistent, side named", "human disagr.", "judge"]  # fmt: skip
    alerted = {(a["period"]) for a in trend.get("alerts", [])}
    rows = []
    for p in periods:
        m = p["misselection"]
        rows.append(
            [
                p["period"] + (" !" if p["period"] in alerted else ""),
                with_interval(m),
                with_interval(p["buckets"][0] if p["buckets"] else None),
                ties_cell(m),
                with_interval(p["judge_satisfied_but_failed"]),
                with_interval(p["user_satisfied_but_failed"]),
                with_interval(p["no_verdict"]),
                with_interval(p["position_consistency"]),
                tie_tie_cell(p["position_consistency"]),
                side_named_cell(p["position_consistency"]),
                with_interval(p["human_disagreement"]),
                ",".join(p["judge_models"]) or "?",
            ]
        )
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [headers, *rows]
    ]
    det = trend.get("detector", {})
    lines += [
        "",
        f"{len(periods)} periods ({trend['kind']} runs, gap source {trend['gap_source']}); "
        "intervals: " + "; ".join(f"{k}: {v}" for k, v in trend["intervals"].items()),
        f"alerts: {det.get('test', '')}; {det.get('multiplicity', '')}; rise interval: "
        f"{det.get('rise_interval', '')}; baseline: first "
        f"{det.get('baseline_periods')} periods, alpha {det.get('alpha')}, "
        f"{det.get('tests', 0)} tests",
        *daily_lines(trend, files, refused),
    ]
    if untold := no_interval_note(series(trend)[NO_VERDICT]):
        lines.append(f"no verdict has no interval in {untold}")
    if any(p["user_satisfied_but_failed"].get("not_measured") for p in periods):
        lines.append(
            "user sbf: " + no_interval_note(series(trend)["user satisfied but failed"], gaps=True)
        )
    alerts = trend.get("alerts", [])
    if det.get("note"):
        lines.append(f"alerts not tested: {det['note']} (--baseline)")
    lines += [alert_line(a) for a in alerts if a.get("first")] or [no_alert(det)]
    later: dict[str, list[str]] = {}
    for a in alerts:
        if not a.get("first"):
            later.setdefault(a["period"], []).append(alert_label(a))
    if later:
        lines.append(
            "also alerted: " + ", ".join(f"{p} ({', '.join(b)})" for p, b in later.items())
        )
    if alerts:
        lines.append(f"action: {alerts[0]['action']}")
    return "\n".join(lines)


CSV_FIELDS = ["period", "metric", "rate", "ci_low", "ci_high", "n", "alert", "no_interval",
              "ci_method", "reason"]  # fmt: skip


def render_csv(trend: dict[str, Any]) -> str:
    """One row per (period, metric): the long form a spreadsheet pivots (``no_interval``: why a
    rate has no interval, else empty; ``ci_method``: the interval's method where there is
    one; ``reason``: why a daily file was refused, on its ``refused`` row)."""
    alerts = chart_alerts(trend)
    buffer = io.StringIO()
    writer = csvsafe.DictWriter(buffer, CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for metric, points in series(trend).items():
        for p in points:  # alert 1 on the series the alert is marked on (a tie-aware one's own)
            method = interval_method(metric) if p["ci_low"] is not None else None
            alert = int(p["period"] in alerts.get(metric, set()))
            writer.writerow({"metric": metric, **p, "alert": alert, "ci_method": method})
    for point in trend["periods"]:  # a daily folder's counts: what a period left out
        if point.get("pairs_without_verdict"):
            writer.writerow({"period": point["period"], "metric": "pairs without verdict",
                             "n": point["pairs_without_verdict"], "alert": 0})  # fmt: skip
        if point.get("verdicts_contradicting"):
            writer.writerow({"period": point["period"], "metric": "verdicts contradicting "
                             "their scores", "n": point["verdicts_contradicting"], "alert": 0})  # fmt: skip
    for refused in trend.get("daily", {}).get("refused", []):
        writer.writerow({"period": refused["period"], "metric": "refused", "alert": 0,
                         "reason": refused["reason"]})  # fmt: skip
    return buffer.getvalue()


def render_html(trend: dict[str, Any]) -> str:
    periods = [p["period"] for p in trend["periods"]]
    marked = chart_alerts(trend)
    skipped = [r["period"] for r in trend.get("daily", {}).get("refused", [])]
    charts = []
    for metric, points in series(trend).items():
        alerts = marked.get(metric, set())
        charts.append(line_svg(metric, points, periods, alerts, not is_odds(metric),
                               refused=skipped, daily=from_daily_files(trend)))  # fmt: skip
        if why := no_interval_note(
            points, gaps=True
        ):  # a gap in the line says why (a judge outage: not measured)
            charts[-1] += f"<p class='note'>{escape(why)}</p>"
    alerts = trend.get("alerts", [])
    refused = "".join(
        f"<li class='warn'>{escape(r['period'])}: {escape(r['reason'])}</li>"
        for r in trend.get("daily", {}).get("refused", [])
    )
    alert_html = "".join(f"<li class='warn'>{escape(alert_line(a))}</li>" for a in alerts)
    det = trend.get("detector", {})
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>judgeaudit trend</title>"
        f"<style>{STYLE}</style></head><body><h1>judgeaudit trend</h1>"
        f"<p>{len(periods)} periods, {escape(periods[0] if periods else '')} to "
        f"{escape(periods[-1] if periods else '')}; {escape(trend['kind'])} runs, gap source "
        f"{escape(str(trend['gap_source']))}.</p>"
        + (f"<h2>Days refused, not in the series</h2><ul>{refused}</ul>" if refused else "")
        + "<h2>Alerts</h2>"
        + (
            f"<ul>{alert_html}</ul><p>{escape(alerts[0]['action'])}</p>"
            if alerts
            else f"<p>{no_alert(det)}</p>"
        )
        + f"<p class='note'>{escape(str(det.get('test', '')))}; "
        f"{escape(str(det.get('multiplicity', '')))}; rise interval: "
        f"{escape(str(det.get('rise_interval', '')))}; baseline: first "
        f"{escape(str(det.get('baseline_periods')))} periods.</p>"
        "<h2>Series</h2>"
        + "".join(f"<div>{c}</div>" for c in charts)
        + "<h2>Table</h2><pre>"
        + escape(render_table(trend, refused=False))  # the refused days have their section
        + "</pre>"
        + "<p class='note'>Intervals: "
        + escape("; ".join(f"{k}: {v}" for k, v in trend["intervals"].items()))
        + "</p></body></html>\n"
    )


def render(trend: dict[str, Any], fmt: str, files: bool = True) -> str:
    """``files=False``: the table without the refused and ignored daily files (the CLI prints
    them on stderr, so a table on stdout would show them twice on a terminal); the data
    formats keep them, as data."""
    if fmt == "json":
        return json.dumps(trend, ensure_ascii=False, indent=2, default=str)
    if fmt == "csv":
        return render_csv(trend)
    if fmt == "html":
        return render_html(trend)
    return render_table(trend, files)

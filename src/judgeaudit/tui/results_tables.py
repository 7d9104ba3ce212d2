"""What the Results screen's tables and lines hold, from a report: the buckets (with the split,
the overall row and the pairs outside every bin), the agent pairs with their ranking flag, the
task types and satisfied-but-failed. Plain functions of the report; the screen lays them out."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judgeaudit.analysis.report_types import Report

from rich.text import Text

from judgeaudit.analysis.fmt import (
    TASK_WILSON,
    bucket_edges,
    bucket_name,
    ci,
    no_simulator,
    pct,
    share_pair,
    with_interval,
)
from judgeaudit.tui.figures import split_cells
from judgeaudit.tui.screens.pairs import OUTSIDE
from judgeaudit.tui.widgets.fit_table import Col, Row

# Every rate is one whole cell with its interval (``15.6% [7.7, 28.8]``) beside its n (the
# decisive pairs), neither ever dropped: at 80 columns the counts go first (pairs, misselected,
# the split), then the gap's edges; a rate never shows without its interval
BUCKET_COLUMNS = (
    Col("bucket", "bucket", min=8, whole=True),
    Col("gap", "gap", min=8, drop=1, whole=True),
    Col("pairs", "pairs", min=5, drop=3),
    Col("decisive", "decisive", min=5, whole=True),
    Col("missel", "missel.", min=5, drop=4, whole=True),
    Col("rate", "missel. [95% CI]", min=12, whole=True),
    Col("split", "right/wrong/tie", min=9, drop=2, whole=True),
    Col("tie", "tie-aware [95% CI]", min=12, whole=True),
)
#: The bucket table's last row: every decisive pair (not a bucket; Enter does nothing on it).
OVERALL = "overall"
# misselection with its interval and n never go; the shares (success, judge wins), each with
# its interval, only where they fit (at 120 columns success, at 80 neither): the line under the
# table gives the highlighted pair's both
AGENT_COLUMNS = (
    Col("a", "agent A", min=8),
    Col("b", "agent B", min=8),
    Col("decisive", "decisive", min=5, whole=True),
    Col("rate", "missel. [95% CI]", min=12, whole=True),
    Col("flag", "ranking", min=19, whole=True),  # a verdict: never cut
    Col("success", "success A / B [95% CI]", min=12, drop=2, whole=True),
    Col("wins", "judge wins A / B [95% CI]", min=12, drop=3, whole=True),
)
TASK_COLUMNS = (
    Col("type", "task type", min=10),
    Col("decisive", "decisive", min=5, whole=True),
    Col("missel", "missel.", min=5, drop=1),
    Col("rate", "missel. [95% CI]", min=12, whole=True),
)
#: Under the agent-pair and task-type tables: their intervals' method (the report's).
METHOD = f"95% CI: {TASK_WILSON}; decisive: the n of misselection"
RANKING = Text("RANKING MISSELECTED", style="bold red")
BAR_TAIL = 29  # " 18.8% [12.4, 27.5] n=1010" after each bar


def outside_count(report: Report) -> int:
    """Pairs no bucket holds: a gap outside the edges, or no gap of this source at all."""
    return int(report["outside_bins"]) + int(report["no_gap"])


def outside_note(r: Report) -> str:
    if not outside_count(r):
        return f"every pair is in a bin ({r['gap_source']} gap, edges {r['bins']})"
    parts = [f"{r['outside_bins']} pairs outside the bins"] if r["outside_bins"] else []
    if r["no_gap"]:
        article = "an" if str(r["gap_source"])[:1] in "aeiou" else "a"
        parts.append(f"{r['no_gap']} pairs without {article} {r['gap_source']} gap")
    return f"{' and '.join(parts)} (edges {r['bins']}); Enter on the outside row lists them"


def bucket_rows(r: Report) -> list[Row]:
    """Each bucket, then every decisive pair (`all`), then the pairs no bin holds."""
    rows: list[Row] = []
    for i, b in enumerate(r["buckets"]):
        cells = {"bucket": bucket_name(b), "gap": bucket_edges(b)}
        cells |= {"pairs": str(b["pairs"]), "decisive": str(b["decisive"])}
        cells |= {"missel": str(b["misselected"]), "rate": with_interval(b)}
        rows.append((str(i), cells | split_cells(b)))
    if r.get("overall"):
        o = r["overall"]
        cells = {"bucket": "all", "decisive": str(o["decisive"]), "missel": str(o["wrong"])}
        rows.append((OVERALL, cells | {"rate": with_interval(o)} | split_cells(o)))
    outside = outside_count(r)
    if outside:
        rows.append((OUTSIDE, {"bucket": Text("outside", style="yellow"), "pairs": str(outside)}))
    return rows


def satisfied_text(r: Report) -> str:
    sbf = r["satisfied_but_failed"]
    judge, user = sbf["judge"], sbf["user_simulator"]
    user_part = (
        " · user simulator: none ran (imported pairs without satisfied_a/_b)"
        if no_simulator(r)
        else f" · user simulator {pct(user['rate'])} "
        f"({user['failed']}/{user['satisfied']} conversations) {ci(user)}"
    )
    return (
        f"Satisfied but failed: judge (score ≥ {sbf['threshold']:g}) {pct(judge['rate'])} "
        f"({judge['failed']}/{judge['satisfied']} judged sides) {ci(judge)}{user_part}"
        + (f"\nWARNING: {sbf['scale_note']}" if "scale_note" in sbf else "")
    )


def agent_rows(r: Report) -> list[Row]:
    """One row per agent pair, keyed `A~B` (Enter opens its pairs)."""
    rows: list[Row] = []
    for p in r["agent_pairs"]:
        cells: dict[str, str | Text] = {"a": p["agent_a"], "b": p["agent_b"]}
        cells["success"] = share_pair(p, "success_rate")
        cells["wins"] = share_pair(p, "judge_win_rate")
        cells |= {"decisive": str(p["decisive"]), "rate": with_interval(p)}
        cells["flag"] = RANKING if p["ranking_misselected"] else ""
        if p.get("ranking") == "suggestive":
            cells["flag"] = "opposite (suggestive)"
        rows.append((f"{p['agent_a']}~{p['agent_b']}", cells))
    return rows


def shares_line(r: Report, key: str | None) -> str:
    """Under the agent-pair table: the method of its intervals, then the highlighted pair's
    (``A~B``; None: the first) success and judge-win shares with their intervals, which the
    table's columns have no room for at 80 columns."""
    pairs = r["agent_pairs"]
    found = [p for p in pairs if f"{p['agent_a']}~{p['agent_b']}" == key] or pairs[:1]
    if not found:
        return METHOD
    p = found[0]
    return (
        f"{METHOD}\n{p['agent_a']} vs {p['agent_b']} ({p['pairs']} pairs): success A / B "
        f"{share_pair(p, 'success_rate')}; judge wins A / B {share_pair(p, 'judge_win_rate')}"
    )


def task_rows(r: Report) -> list[Row]:
    return [
        (
            str(t["task_type"]),
            {
                "type": str(t["task_type"]),
                "decisive": str(t["decisive"]),
                "missel": str(t["misselected"]),
                "rate": with_interval(t),
            },
        )
        for t in r["by_task_type"]
    ]

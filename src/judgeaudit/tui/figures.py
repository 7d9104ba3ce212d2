"""The report's figures as table cells and lines, for Results and the Runs compare.

The split, the tie-aware rate and position bias are formatted by :mod:`judgeaudit.analysis.fmt`
(the same text the HTML report and `report` print); this module only lays them out in cells."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from judgeaudit.analysis.fmt import bias, bucket_name, ci, pct
from judgeaudit.tui.widgets.fit_table import Col, Row


def split_cells(row: Mapping[str, Any]) -> dict[str, str]:
    """The three-way split and the tie-aware rate with its interval, as the reports show them."""
    if "tie_aware_ci" not in row:
        return {}
    low, high = row["tie_aware_ci"] or (None, None)
    return {
        "split": f"{row['right']}/{row['wrong']}/{row['tie']}",
        "tie": f"{pct(row['tie_aware_rate'])} {ci({'ci_low': low, 'ci_high': high})}",
    }


def tie_aware(row: Mapping[str, Any]) -> str:
    """``12.6% [9.3, 16.7]``: a row's tie-aware rate and interval, or n/a."""
    return split_cells(row).get("tie", "n/a")


#: each run's figures in the Runs compare: per bucket run A's row, then run B's (the split
#: adds up to the decisive pairs, so no column of its own: whole at 80 columns)
FIGURE_COLUMNS = (
    Col("bucket", "bucket", min=8, whole=True),
    Col("run", "run", min=3),
    Col("rate", "missel. (95% CI)", min=12),
    Col("split", "right/wrong/tie", min=9, drop=1),
    Col("tie", "tie-aware (95% CI)", min=12),
)


def figure_rows(figures: dict[str, Any]) -> list[Row]:
    """Run A's and run B's split and tie-aware rate per bucket and overall (from ``compare``'s
    ``figures``: each run's own report)."""
    a, b = figures["a"], figures["b"]
    rows: list[Row] = []
    entries = [(i, x, y) for i, (x, y) in enumerate(zip(a["buckets"], b["buckets"], strict=True))]
    for index, row_a, row_b in [*entries, ("overall", a["overall"], b["overall"])]:
        name = "all" if index == "overall" else bucket_name(row_a)
        for side, row in (("A", row_a), ("B", row_b)):
            cells: dict[str, str | Text] = {
                "bucket": name if side == "A" else "",
                "run": side,
                "rate": f"{pct(row.get('rate'))} {ci(row)}",
                **split_cells(row),
            }
            rows.append((f"{index}-{side}", cells))
    return rows


def bias_lines(figures: dict[str, Any]) -> Text:
    """Position bias of each run, both statistics under their own names (the report's text)."""
    text = Text("Position bias (orders without a verdict left out)\n", style="bold")
    for side in ("a", "b"):
        run = figures[side]
        for row in run["position_bias"] or [{"judge_model": "swap off"}]:
            text.append(f"{side.upper()} {run['run_id']}: ", style="bold")
            text.append(f"{bias(row) if 'consistency_rate' in row else 'swap off'}\n")
    text.append(
        f"95% CI: {figures['a'].get('intervals') or 'Wilson'}; "
        "tie-aware = (wrong + tie/2) / decisive",
        style="dim",
    )
    return text


def headline(figures: dict[str, Any]) -> str:
    """One line for the compare's summary: overall tie-aware rate and first-position wins."""

    def first_wins(run: dict[str, Any]) -> str:
        rows = run["position_bias"] or []
        stat = (rows[0].get("first_position_win_rate") or {}) if len(rows) == 1 else {}
        return f"{pct(stat.get('rate'))} {ci(stat)}" if stat.get("decided_orders") else "n/a"

    a, b = figures["a"], figures["b"]
    return (
        f"tie-aware overall: A {tie_aware(a['overall'])} → B {tie_aware(b['overall'])}; "
        f"first position wins (decided orders): A {first_wins(a)} → B {first_wins(b)} "
        "— f shows each run's split and position bias"
    )

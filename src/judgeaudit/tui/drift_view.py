"""The drift view's text and rows: what `judgeaudit compare` prints, for the Runs screen.

The warnings and the gate's outcome come from the same :class:`Comparison` the CLI prints, so
the screen cannot show a compare the CLI would flag without the flag."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from judgeaudit.analysis.fmt import NO_FLIPS, TASK_WILSON, with_ci
from judgeaudit.tui.figures import headline
from judgeaudit.tui.widgets.fit_table import Col, Row

if TYPE_CHECKING:  # the analysis (pandas) loads with the first compare
    from judgeaudit.analysis.compare_entry import Comparison

# every rate (before, after, the change) is one whole cell with its interval beside its n; at
# 80 columns the flips, then the p-values go (the RISE flag stays);
# only where even that is short does run B's rate go (before + change), then run A's
DRIFT_COLUMNS = (
    Col("bucket", "bucket", min=9, whole=True),
    Col("n", "n", min=3, whole=True),
    Col("before", "before [95% CI]", min=12, drop=1, whole=True),
    Col("after", "after [95% CI]", min=12, drop=2, whole=True),
    Col("change", "change [95% CI]", min=12, whole=True),
    Col("p", "p (adj.)", min=9, drop=3, whole=True),
    Col("flips", "flipped +/−", min=9, drop=4, whole=True),
    Col("flag", "", min=4),
)
OVERALL = "overall"
#: On the changes pane's lower edge, just above the drift table: visible at 80×24 without
#: scrolling the pane, whose method line names the change's interval and test in full.
DRIFT_METHOD = f"95% CI: before, after {TASK_WILSON}; change: see above"
#: The drift table's row of the gate's second criterion (the overall tie-aware rate): a judge
#: that stops deciding fails the gate on it while every misselection row reads "fall".
TIE_AWARE = "tie-aware"


def pts(v: float | None) -> str:
    return "n/a" if v is None else f"{v * 100:+.1f}"


GATE_STYLE = {
    "passed": "green",
    "failed": "bold red",
    "inconclusive": "bold yellow",
    "refused": "bold yellow",
}


def changes_text(compared: Comparison) -> Text:
    result = compared.result
    changes = result["manifest_changes"]
    text = Text(f"{result['run_a']} → {result['run_b']} ({result['gap_source']} gap)\n", "bold")
    # the verdict second, visible without scrolling at 80x24 (it sat under the pairing, the
    # no-verdict lines and the method, below the pane's fold); then where it comes from
    reasons = "; ".join(compared.gate_reasons)
    text.append(f"gate (--fail-on-rise): {compared.gate.upper()}", style=GATE_STYLE[compared.gate])
    text.append(f" — {reasons}\n" if reasons else "\n", style=GATE_STYLE[compared.gate])
    text.append(f"A: {compared.out_a}  B: {compared.out_b}\n", style="dim")
    pairing = result.get("pairing")
    if result.get("paired") and pairing:
        text.append(
            f"paired: {pairing['basis']}; {pairing['matched']} pairs matched, "
            f"{pairing['decisive']} decisive in both\n",
            style="green",
        )
    else:
        text.append(f"unpaired: {result['unpaired_because']}\n", style="yellow")
    for line in compared.warnings:
        text.append(f"{line}\n", style="yellow" if line.startswith("WARNING") else "")
    from judgeaudit.analysis.drift import tie_aware_row  # pandas: loaded with the first compare
    from judgeaudit.analysis.gate import gate_lines

    lines = gate_lines(result)
    if lines and compared.gate != "refused":
        # the CLI's verdict line, for every verdict: which criterion failed, why a gate with
        # RISE rows passed (a rise set aside), the margin it was decided at
        text.append(f"{lines[0]}\n", style=GATE_STYLE[compared.gate])
    for line in lines[2:]:  # too few pairs / not enough data, as the CLI says them
        text.append(f"{line.strip()}\n", style="yellow")
    if result.get("figures"):
        text.append(f"{headline(result['figures'])}\n")
    method = result.get("method")
    if method:
        text.append(
            f"before, after: 95% CI, {TASK_WILSON}; change: interval {method['interval']}; "
            f"test {method['test']}"
            + (
                f"; {TIE_AWARE}: the overall rate, a tie counting half a loss (the gate's second "
                f"criterion), its rise tested alone at alpha {tie['alpha']}, p not adjusted"
                if (tie := tie_aware_row(result))
                else ""
            )
            + "\n",
            style="dim",
        )
    text.append(f"manifest changes: {len(changes) or 'none'}\n")
    for c in changes:
        text.append(f"  {c['key']}: ", style="bold")
        text.append(f"{c['before']!r} → {c['after']!r}\n")
    if result.get("decided_by"):
        text.append(f"decided by: {result['decided_by']}", style="dim")
    return text


def deciding_row(result: dict[str, Any]) -> str | None:
    """The drift row that failed the gate, where the cursor goes: the first row called worse,
    else the tie-aware row when the gate failed on it (at 80×24 the table shows three rows and
    that one, last, sat under the fold beside FAILED); None when no row failed it."""
    gate = result.get("gate") or {}
    if gate.get("verdict") != "worse":
        return None
    for i, row in enumerate(result["buckets"]):
        if row.get("verdict") == "worse":
            return str(i)
    if result["overall"].get("verdict") == "worse":
        return OVERALL
    return TIE_AWARE if gate.get("tie_aware") == "worse" else None


def deciding_title(name: str, above: int, below: int) -> str:
    """The change pane's top edge while the cursor is on the row that failed the gate:
    ``above`` rows out of sight over the table's top (it opened on that row), or ``below``, the
    rows down to that row when it is out of sight under the fold (the table scrolled back up
    with the cursor left on it); "" when neither."""
    said = [
        f"{arrow} {n} row{'s' if n > 1 else ''} {where}"
        for arrow, n, where in (("↑", above, "above"), ("↓", below, "below"))
        if n > 0
    ]
    return " · ".join([f"cursor on {name}, the row that failed the gate", *said]) if said else ""


def p_text(row: dict[str, Any]) -> str:
    if row.get("p_adjusted") is None:
        return NO_FLIPS if row.get("paired") and row["n_before"] else "n/a"
    return f"{row['p_value']:.3g} ({row['p_adjusted']:.3g})"


def n_text(before: int, after: int) -> str:
    """A row's decisive pairs: once where both runs have as many (a re-judge), else both."""
    return str(before) if before == after else f"{before}/{after}"


def drift_rows(result: dict[str, Any]) -> list[Row]:
    # pandas: loaded with the first compare
    from judgeaudit.analysis.drift import tie_aware_row
    from judgeaudit.analysis.fmt import change_interval, row_moved

    rows: list[Row] = []
    overall = result.get("overall")
    for i, r in enumerate([*result["buckets"], *([overall] if overall else [])]):
        interval = change_interval(r, row_moved(r))
        flag: Text | str = ""
        if r["significant_rise"]:
            flag = Text("RISE", style="bold red")
        elif r["significant_fall"]:
            flag = Text("fall", style="green")
        name = (
            r["label"] if r.get("alias") in (None, "", r["label"]) else f"{r['label']} {r['alias']}"
        )
        flips = r.get("paired")
        cells: dict[str, Text | str] = {
            "bucket": name,
            "n": n_text(r["n_before"], r["n_after"]),
            "before": with_ci(r["before"], r.get("ci_before"), "[no CI]"),
            "after": with_ci(r["after"], r.get("ci_after"), "[no CI]"),
            "change": "n/a" if r["change"] is None else f"{pts(r['change'])} {interval}",
            "p": p_text(r),
            "flips": f"+{flips['flipped_to_misselected']}/−{flips['flipped_to_correct']}"
            if flips
            else "",
            "flag": flag,
        }
        rows.append((OVERALL if r is overall else str(i), cells))
    tie = tie_aware_row(result)
    if tie is not None:
        cells = {
            "bucket": TIE_AWARE,
            "n": str(tie["n"]),
            "before": tie["before"],
            "after": tie["after"],
            "change": f"{tie['change']} {tie['interval']}",
            "p": tie["p"],  # not adjusted: tested alone at its alpha (the method line)
            "flips": "",
            "flag": Text("RISE", style="bold red") if tie["rise"] else "",
        }
        rows.append((TIE_AWARE, cells))
    return rows


def chart_entries(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each bucket's (and the overall) rate before and after, each with its run's own 95%
    interval as the comparison carries it (the report's rule, not one of the view's own)."""
    entries = []
    for row in [*result["buckets"], result["overall"]]:
        name = (
            row["label"]
            if row.get("alias") in (None, "", row["label"])
            else (f"{row['label']} {row['alias']}")
        )
        for side, rate_key, n_key, ci_key in (
            ("before", "before", "n_before", "ci_before"),
            ("after", "after", "n_after", "ci_after"),
        ):
            n, rate = int(row[n_key] or 0), row[rate_key]
            low, high = row.get(ci_key) or (None, None)
            entries.append(
                {
                    "label": f"{name} {side}",
                    "alias": f"{name} {side}",
                    "rate": rate if n else None,
                    "ci_low": low,
                    "ci_high": high,
                    "decisive": n,
                }
            )
    return entries


def chart_text(result: dict[str, Any], width: int) -> Text:
    from judgeaudit.tui.widgets.bars import bars

    text = Text(
        f"misselection before ({result['run_a']}) and after ({result['run_b']}), each rate "
        "with its 95% interval by the report's rule (Wilson with the task-clustering design "
        "effect); the change's own interval and test are in the table (g)\n",
        style="dim",
    )
    text.append_text(bars(chart_entries(result), width))
    return text

"""Results' verdict-health text: the report's own no-verdict line, then per judge its share."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judgeaudit.analysis.report_types import Report

from rich.text import Text

from judgeaudit.analysis.fmt import pct


def health_text(r: Report) -> Text:
    """The report's verdict health (its own line) and, per judge, the no-verdict share."""
    # pandas: not before the first paint
    from judgeaudit.analysis.verdicts import health_line, misselected_text, unjudged

    line = health_line(r["verdicts"])
    text = Text()
    if unjudged(r["verdicts"]) is not None:  # the report's headline, as `report` words it
        text.append(misselected_text(r["misselected"], r["verdicts"]) + "\n", style="bold red")
    text.append(line + "\n", style="bold red" if "WARNING" in line else "")
    for j in r["verdicts"].get("by_judge", []):
        text.append(
            f"  {j['judge_model']}: no verdict {pct(j['no_verdict_rate'])} of orders "
            f"({j['no_verdict_orders']}/{j['orders']}), parse failures "
            f"{j['parse_failures']}/{j['judge_calls']} calls\n",
            style="dim",
        )
    return text

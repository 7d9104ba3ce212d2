"""Results' verdict-health text: the report's own no-verdict line (naming the interval's
method), then per judge its share and interval."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judgeaudit.analysis.report_types import Report

from rich.text import Text

from judgeaudit.analysis.fmt import verdict_line


def health_text(r: Report) -> Text:
    """The report's verdict health (its own line) and, per judge, the no-verdict share."""
    # pandas: not before the first paint
    from judgeaudit.analysis.verdicts import health_line, misselected_text, unjudged
    from judgeaudit.audit.spec.records import recorded_verdicts

    recorded = recorded_verdicts(r["manifest"])
    line = health_line(r["verdicts"], recorded=recorded)
    text = Text()
    if unjudged(r["verdicts"]) is not None:  # the report's headline, as `report` words it
        text.append(misselected_text(r["misselected"], r["verdicts"]) + "\n", style="bold red")
    text.append(line + "\n", style="bold red" if "WARNING" in line else "")
    for j in r["verdicts"].get("by_judge", []):
        text.append(f"  {verdict_line(j, recorded)}\n", style="dim")
    return text

"""A rate's interval is printed one way in every text output a user reads.

The report's table and Markdown showed ``28.6% [24.2, 33.4]`` beside ``52.0% 44.0–59.9%`` (the
tie-aware rate, position bias, the no-verdict line) and the HTML and the app's bars a third
``[12.4–27.5]``; :func:`judgeaudit.analysis.fmt.bracket` is the one form now.
"""

from __future__ import annotations

import re
from pathlib import Path

from judgeaudit.analysis.fmt import no_verdict, share_intervals
from judgeaudit.analysis.report import ReportOptions, build_report, render
from judgeaudit.tui.widgets.bars import bars
from tests.report_fixture import build_audit_db

#: ``44.0–59.9%``, ``0.39–0.54``, ``[12.4–27.5]``: an interval written as a dashed span
SPAN = re.compile(r"\d\.\d+\s*[–-]\s*\d+\.\d+%?")
BRACKET = re.compile(r"\[\d+\.\d, \d+\.\d\]")


def test_every_report_format_prints_intervals_in_brackets(tmp_path: Path) -> None:
    report = build_report(build_audit_db(tmp_path), ReportOptions())
    for fmt in ("table", "md", "html"):
        text = render(report, fmt)
        assert not SPAN.findall(text), (fmt, SPAN.findall(text)[:3])
        assert BRACKET.search(text), fmt
    table = render(report, "table")
    assert re.search(r"tie-aware \d+\.\d% \[\d+\.\d, \d+\.\d\]", table)
    assert re.search(r"swap-consistent \d+\.\d% \[\d+\.\d, \d+\.\d\] \(tie/tie: \d+ of", table)


def test_the_apps_bars_and_the_shared_lines_use_the_same_form() -> None:
    bucket = {"label": "near", "rate": 0.188, "ci_low": 0.124, "ci_high": 0.275, "decisive": 1010}
    assert " 18.8% [12.4, 27.5] n=1010" in bars([bucket]).plain
    alone = {**bucket, "ci_low": None, "ci_high": None}
    assert " 18.8% [no interval] n=1010" in bars([alone]).plain
    health = {
        "no_verdict_rate": 0.021,
        "no_verdict_rate_ci": [0.007, 0.06],
        "no_verdict_orders": 5,
        "orders": 240,
    }
    assert no_verdict(health) == "2.1% of orders (5/240; 95% CI [0.7, 6.0])"
    pair = {f"{n}_{s}_ci": [0.87, 0.97] for n in ("success_rate", "judge_win_rate") for s in "ab"}
    assert share_intervals(pair).startswith("success A [0.87, 0.97], B [0.87, 0.97];")


def test_a_bound_near_0_or_100_is_never_rounded_onto_it() -> None:
    """A new user: 0 of 40,000 orders printed `0.0% [0.0, 0.0]`, a zero-width interval; the
    Wilson upper bound (statsmodels) is 0.0096 points, printed with the digits it needs."""
    from statsmodels.stats.proportion import proportion_confint

    from judgeaudit.analysis.fmt import bracket

    assert bracket(proportion_confint(0, 40000, method="wilson")) == "[0.0, 0.01]"
    assert bracket(proportion_confint(40000, 40000, method="wilson")) == "[99.99, 100.0]"
    assert bracket(proportion_confint(0, 14, method="wilson")) == "[0.0, 21.5]"
    assert bracket((0.242, 0.334)) == "[24.2, 33.4]"

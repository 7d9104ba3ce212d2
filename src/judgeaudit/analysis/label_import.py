"""Importing human review labels: one function both front ends call. It stores the labels
(through the store, the only writer of ``audit.db``) and rewrites ``OUT/report.html`` so the
report a reviewer opens next shows them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judgeaudit.analysis.frame import AnalysisError
from judgeaudit.analysis.report import ReportOptions, build_report, write_report_files
from judgeaudit.audit.store.labels import clear_human_labels, save_human_labels


def import_labels(out: Path, labels: list[dict[str, Any]]) -> tuple[int, Path | None]:
    """Store ``labels`` for the run in ``out``; returns (rows written, the refreshed report)."""
    count = save_human_labels(out / "audit.db", labels)
    return count, refresh_report_html(out)


def clear_label(out: Path, pair_id: str) -> Path | None:
    """Forget one pair's labels; returns the refreshed report, if OUT has one."""
    clear_human_labels(out / "audit.db", pair_id)
    return refresh_report_html(out)


def refresh_report_html(out: Path) -> Path | None:
    """Rewrite OUT/report.html (for the run it shows) so it includes the new labels."""
    if not (out / "report.html").is_file():
        return None
    try:
        shown = json.loads((out / "manifest.json").read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError):
        shown = None
    try:
        report = build_report(out, ReportOptions(run_id=shown))
    except AnalysisError:
        report = build_report(out)
    return write_report_files(out, report)[0]

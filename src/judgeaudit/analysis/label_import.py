"""Importing human review labels: one function both front ends call. It stores the labels
(through the store, the only writer of ``audit.db``) and rewrites ``OUT/report.html`` so the
report a reviewer opens next shows them.

The rewrite holds OUT's run lock (:mod:`judgeaudit.audit.store.out_lock`), as ``export files``
does: while a run writes OUT, its own closing report will show the labels, and a second writer
of ``report.html`` could leave the older figures last. A label stored is never called unsaved
because its report could not be rewritten: the two outcomes are told apart.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit.analysis.frame import AnalysisError
from judgeaudit.analysis.label_conversations import check_labels
from judgeaudit.analysis.report import ReportOptions, build_report, write_report_files
from judgeaudit.audit.store.labels import Stored, clear_human_labels, save_human_labels
from judgeaudit.errors import JudgeauditError


@dataclass(frozen=True)
class Refreshed:
    """What became of ``OUT/report.html`` after labels were stored: rewritten (``path``), not
    there to rewrite (neither), or left as it was and why (``skipped``)."""

    path: Path | None = None
    skipped: str | None = None

    def said(self) -> str:
        """The clause a front end appends to "stored N labelled pairs"; empty when OUT has no
        report.html."""
        if self.path is not None:
            return f"{self.path} shows them"
        if self.skipped is not None:
            return f"report.html not rewritten: {self.skipped}"
        return ""


def import_labels(out: Path, labels: list[dict[str, Any]]) -> tuple[Stored, Refreshed]:
    """Store ``labels`` for the run in ``out``; returns (what was stored, the report's fate)."""
    stored = save_human_labels(out / "audit.db", labels)
    return stored, refresh_report_html(out)


def import_checked(
    out: Path, labels: list[tuple[str, dict[str, Any]]], relabel: str
) -> tuple[Stored, Refreshed]:
    """:func:`import_labels` after the one-mark-per-conversation check
    (:func:`~judgeaudit.analysis.label_conversations.check_labels`; ``labels`` each with where it
    was given): `review import` and the app's Review save through here, so neither stores a
    mark that contradicts another of the same conversation."""
    check_labels(out, labels, relabel)
    return import_labels(out, [label for _, label in labels])


def clear_label(out: Path, pair_id: str) -> Refreshed:
    """Forget one pair's labels; returns the report's fate."""
    clear_human_labels(out / "audit.db", pair_id)
    return refresh_report_html(out)


def refresh_report_html(out: Path) -> Refreshed:
    """Rewrite OUT/report.html (for the run it shows) so it includes the stored labels, under
    OUT's run lock; a live run, or a report that cannot be built or written, leaves it as it
    was and says why (the labels are stored either way)."""
    from judgeaudit.audit.store.out_lock import OutBusy, writing

    if not (out / "report.html").is_file():
        return Refreshed()
    try:
        with writing(out):
            return Refreshed(path=_rewrite(out))
    except OutBusy:
        return Refreshed(
            skipped="a run (or an export) is writing OUT; its closing report will show them"
        )
    except (JudgeauditError, OSError) as exc:
        why = (
            f"{exc.filename2 or exc.filename}: {exc.strerror}"
            if isinstance(exc, OSError)
            else str(exc)
        )
        return Refreshed(skipped=f"{why} (run `judgeaudit export files {out}` to retry)")


def _rewrite(out: Path) -> Path:
    """The report files again, for the run report.html shows; the caller holds OUT."""
    try:
        shown = json.loads((out / "manifest.json").read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError):
        shown = None
    try:
        report = build_report(out, ReportOptions(run_id=shown))
    except AnalysisError:
        report = build_report(out)
    return write_report_files(out, report, holding=True)[0]

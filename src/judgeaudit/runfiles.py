"""The names of the files a run writes into its output directory besides ``audit.db``: on the
shared floor so that :mod:`judgeaudit.outdir` (which refuses a directory holding them but no
``audit.db``) takes them from here, not from a copy, as the writers do (``audit/export.py``
writes the first three, ``analysis/report_render.py`` the report files; both re-export them,
so their old import paths work). A copy in ``validate.DERIVED`` was left behind before.
"""

from __future__ import annotations

PAIRS_CSV = "audit_pairs.csv"
LOGS_JSONL = "judge_logs.jsonl"
MANIFEST = "manifest.json"
#: The report files a run writes into OUT (and ``export files`` rewrites).
REPORT_HTML = "report.html"
CHART_SVG = "misselection.svg"

"""The SQL-aggregated report equals the pandas one it replaced, section by section."""

from __future__ import annotations

import asyncio
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.analysis.report import ReportOptions, build_report, build_report_pandas
from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner
from tests.audit_helpers import write_spec


def same(a: Any, b: Any, where: str = "report") -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        assert set(a) == set(b), f"{where}: keys {set(a) ^ set(b)}"
        for key in a:
            same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), f"{where}: {len(a)} != {len(b)} items"
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{index}]")
    elif isinstance(a, float) or isinstance(b, float):
        if a is None or (isinstance(a, float) and math.isnan(a)):
            assert b is None or (isinstance(b, float) and math.isnan(b)), f"{where}: {a} != {b}"
        else:
            assert b == pytest.approx(a, rel=1e-12, abs=1e-12), f"{where}: {a} != {b}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("sql-report")
    spec = write_spec(base / "spec.toml", judge="judge-flaky")
    asyncio.run(AuditRunner(load_spec(spec), base / "out").run())
    db = sqlite3.connect(base / "out" / "audit.db")
    ids = [r[0] for r in db.execute("SELECT pair_id FROM audit_pairs ORDER BY pair_id LIMIT 12")]
    with db:
        db.executemany(
            "INSERT INTO human_labels (pair_id, human_success_a, human_success_b, human_pref)"
            " VALUES (?, ?, ?, ?)",
            [(pid, i % 2, 1, ("A", "B", "tie")[i % 3]) for i, pid in enumerate(ids)],
        )
    return base / "out"


@pytest.mark.parametrize(
    "options",
    [
        ReportOptions(),
        ReportOptions(gap_source="judge"),
        ReportOptions(bins=[-0.01, 0.05, 0.4, 1.0], labels=["a", "b", "c"], threshold=3.5),
    ],
)
def test_sql_report_equals_pandas_report(audited: Path, options: ReportOptions) -> None:
    same(build_report_pandas(audited, options), build_report(audited, options))


def test_both_reports_refuse_an_external_gap_on_a_run_without_rewards(audited: Path) -> None:
    """Simulated conversations carry no reward: every bucket was empty, exit 0 (a new user's
    trial). The external gap of runs with rewards is in the golden reports."""
    from judgeaudit.analysis.frame import AnalysisError

    for build in (build_report_pandas, build_report):
        with pytest.raises(AnalysisError, match="no pair has a reward"):
            build(audited, ReportOptions(gap_source="external"))


def test_parallel_scans_give_the_same_report(
    audited: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The three scans on their own connections (as for millions of pairs) change nothing."""
    serial = build_report(audited, ReportOptions(gap_source="judge"))
    monkeypatch.setattr("judgeaudit.analysis.aggregate.PARALLEL_FROM", 1)
    same(serial, build_report(audited, ReportOptions(gap_source="judge")))
    same(build_report_pandas(audited), build_report(audited))

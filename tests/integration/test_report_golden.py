"""The report, rendered, equals byte for byte what the report gave before it was made fast.

The golden files under tests/fixtures/report/ were written by the SQL report as it stood at
fd7dcf8 (three grouped scans and a clustered join) from the seeded DB of
``tests/report_fixture.py``; any change to how the report reads the store must leave every
figure, interval and ordering as it was. Regenerate only for a deliberate change of a number:
``python -m tests.integration.test_report_golden --write`` (and say why in the commit).

The JSON's floats are compared to 1e-9 relative: a model fit's last digits (a p-value's
fifteenth, an odds ratio's sixteenth) follow the CPU's BLAS, so the same code wrote other
digits on two of the project's machines; every printed form (table, Markdown, CSV, HTML) is
compared byte for byte.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.analysis.report import ReportOptions, build_report, render
from tests.report_fixture import build_audit_db

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "report"

CASES: dict[str, tuple[ReportOptions, tuple[str, ...]]] = {
    "default": (ReportOptions(), ("json", "table", "md", "csv", "html")),
    "capability": (ReportOptions(gap_source="capability"), ("json",)),
    "external": (ReportOptions(gap_source="external"), ("json",)),
    "custom-bins": (
        ReportOptions(
            gap_source="judge", bins=[-0.01, 0.05, 0.4, 1.0], labels=["a", "b", "c"], threshold=3.5
        ),
        ("json",),
    ),
    "wide-run": (ReportOptions(run_id="r-wide", labels=["en"]), ("json", "table")),
    "wide-capability": (ReportOptions(run_id="r-wide", gap_source="capability"), ("json",)),
    "other-run": (ReportOptions(run_id="r-other", gap_source="external"), ("json",)),
}


def rendered(out: Path) -> dict[str, str]:
    texts = {}
    for name, (options, formats) in CASES.items():
        report = build_report(out, options)
        for fmt in formats:
            texts[f"{name}.{fmt}"] = render(report, fmt)
    return texts


@pytest.fixture(scope="module", params=[False, True], ids=["older-db", "indexed-db"])
def texts(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> dict[str, str]:
    """Reports from a DB without the report index (as older runs left it) and with it."""
    out = tmp_path_factory.mktemp("golden")
    return rendered(build_audit_db(out, indexed=request.param))


@pytest.mark.parametrize(
    "name", [f"{case}.{fmt}" for case, (_options, formats) in CASES.items() for fmt in formats]
)
def test_report_equals_the_golden_report(texts: dict[str, str], name: str) -> None:
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    if name.endswith(".json"):
        found = differences(json.loads(texts[name]), json.loads(expected), "")
        assert not found, f"{name} differs from {GOLDEN / name}: {found[:5]}"
    else:
        assert texts[name] == expected, f"{name} differs from {GOLDEN / name}"


def differences(got: Any, want: Any, where: str) -> list[str]:
    """Where two JSON values differ: structure and every non-float exactly, floats to 1e-9
    relative (1e-12 absolute near zero)."""
    if isinstance(want, float) and isinstance(got, float):
        same = got == want or math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
        return [] if same else [f"{where}: {got!r} != {want!r}"]
    if isinstance(want, dict) and isinstance(got, dict):
        if list(got) != list(want):
            return [f"{where}: keys {list(got)} != {list(want)}"]
        return [d for key in want for d in differences(got[key], want[key], f"{where}.{key}")]
    if isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            return [f"{where}: {len(got)} items != {len(want)}"]
        return [d for i, (a, b) in enumerate(zip(got, want, strict=True))
                for d in differences(a, b, f"{where}[{i}]")]  # fmt: skip
    return [] if type(got) is type(want) and got == want else [f"{where}: {got!r} != {want!r}"]


def test_the_fixture_reaches_both_interval_paths(tmp_path: Path) -> None:
    """A bucket of the wide run has more tasks than the bootstrap takes (the normal interval),
    every bucket of the main run fewer (the seeded bootstrap)."""
    import sqlite3

    from judgeaudit.analysis.stats import BOOT_MAX_CLUSTERS

    db = sqlite3.connect(build_audit_db(tmp_path) / "audit.db")
    gap = "ROUND(ABS(judge_score_a - judge_score_b), 6)"
    most = {
        run: db.execute(
            f"SELECT MAX(n) FROM (SELECT COUNT(DISTINCT task_id) AS n FROM audit_pairs"
            f" WHERE run_id = ? AND success_a != success_b AND {gap} IS NOT NULL"
            f" GROUP BY {gap} > 1.0)",
            (run,),
        ).fetchone()[0]
        for run in ("r-wide", "r-main")
    }
    assert most["r-wide"] > BOOT_MAX_CLUSTERS > most["r-main"]


def test_a_finished_run_gets_the_index_and_the_report_reads_it_without_sorting(
    tmp_path: Path,
) -> None:
    """The grouped scan walks the index in group order: no temporary B-tree, no table rows."""
    import asyncio
    import sqlite3

    from judgeaudit.analysis.grouped import models_and_type_sql
    from judgeaudit.audit.inputs import load_spec
    from judgeaudit.audit.runner import AuditRunner
    from tests.audit_helpers import write_spec

    spec = write_spec(tmp_path / "spec.toml", tasks="builtin:retail")
    asyncio.run(AuditRunner(load_spec(spec), tmp_path / "out").run())
    db = sqlite3.connect(tmp_path / "out" / "audit.db")
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "pairs_for_report" in names
    sql, args = models_and_type_sql("x", 4.0)
    plan = db.execute(f"EXPLAIN QUERY PLAN {sql}", args).fetchall()
    steps = [row[3] for row in plan]
    assert steps == ["SEARCH audit_pairs USING COVERING INDEX pairs_for_report (run_id=?)"], steps


def test_the_csv_ends_with_the_overall_row_and_one_line_end(tmp_path: Path) -> None:
    """The CSV had the buckets only (no overall rate) and `report` printed a blank line after
    it (a new user's trial)."""
    import csv
    import io
    import json

    from tests.cli_helpers import cli_ok

    out = build_audit_db(tmp_path / "out")
    text = cli_ok("report", str(out), "--format", "csv").stdout
    assert text.endswith("\n") and not text.endswith("\n\n")
    last = list(csv.DictReader(io.StringIO(text)))[-1]
    overall = json.loads(cli_ok("report", str(out), "--format", "json").stdout)
    assert (last["label"], last["alias"], last["lo"], last["hi"]) == ("all", "overall", "", "")
    assert (
        int(last["pairs"]) == overall["pairs"]
        and int(last["misselected"]) == overall["misselected"]
    )
    for key in ("decisive", "rate", "ci_low", "ci_high", "tie_aware_rate"):
        assert float(last[key]) == overall["overall"][key], key


def test_every_csv_interval_names_its_method(tmp_path: Path) -> None:
    """The CSV had intervals and no method (a new user's report); JSON and Markdown name it."""
    import csv
    import io
    import json

    from tests.cli_helpers import cli_ok

    out = build_audit_db(tmp_path / "out")
    rows = list(csv.DictReader(io.StringIO(cli_ok("report", str(out), "--format", "csv").stdout)))
    report = json.loads(cli_ok("report", str(out), "--format", "json").stdout)
    markdown = cli_ok("report", str(out), "--format", "md").stdout
    assert {r["ci_method"] for r in rows} == {report["intervals"]}
    assert "design effect" in report["intervals"]
    *buckets, overall = rows
    for row in buckets:  # the bootstrap's seed and resamples, as the Markdown says them
        seed, resamples = report["bootstrap"]["seed"], report["bootstrap"]["resamples"]
        assert f"{resamples} resamples of whole tasks, seed {seed}" in row["boot_method"]
        assert f"Task-clustered: {row['boot_method']}." in markdown
    assert overall["boot_low"] == overall["boot_method"] == ""  # no bootstrap on that row


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        for key, text in rendered(build_audit_db(Path(tmp))).items():
            (GOLDEN / key).write_text(text, encoding="utf-8")
            print(f"wrote {GOLDEN / key}")

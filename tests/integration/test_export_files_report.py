"""``export files`` after a recorded run (the command the run's own line names): it writes the
CSV and the judge log from audit.db and the report files from the report the run kept, without
computing that report again (opening the store for writing changed audit.db's state, so every
``export files`` computed it: 17.6 s of CPU at 1M recorded pairs). Its summary counts the
run's pairs in SQL where no file is fed the rows, the same counts the CSV's rows give."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest

from judgeaudit.audit.export import export_all
from judgeaudit.audit.store import AuditStore
from judgeaudit.cli import main
from tests.integration.test_report_memo import computed as computed

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"
SPEC = '[run]\nname = "rec"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'


def _recorded_run(tmp: Path) -> Path:
    pairs = tmp / "pairs.jsonl"
    log = str(ROLLOUTS / "recorded-verdicts.jsonl")
    assert main(["import", "recorded-jsonl", log, "--out", str(pairs)]) == 0
    (tmp / "spec.toml").write_text(SPEC, encoding="utf-8")
    assert main(["run", str(tmp / "spec.toml"), "--out", str(tmp / "out")]) == 0
    return tmp / "out"


def test_export_files_uses_the_report_the_run_kept(
    tmp_path: Path, computed: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = _recorded_run(tmp_path)
    assert len(computed) == 1  # the run's closing report
    assert main(["report", str(out), "--format", "json"]) == 0
    assert len(computed) == 1
    html = (out / "report.html").read_bytes()
    assert main(["export", "files", str(out)]) == 0
    assert len(computed) == 1  # was 2: the store's open made the kept report stale
    assert (out / "report.html").read_bytes() == html
    assert (out / "audit_pairs.csv").is_file() and (out / "judge_logs.jsonl").is_file()
    assert main(["report", str(out), "--format", "json"]) == 0
    assert len(computed) == 2  # export's writes changed audit.db: the next report computes


def test_a_summary_without_files_counts_what_the_csv_rows_count(tmp_path: Path) -> None:
    out = _recorded_run(tmp_path)
    assert main(["export", "files", str(out)]) == 0
    with (out / "audit_pairs.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    by_hand = (
        len(rows),
        sum(r["success_a"] != r["success_b"] for r in rows),
        sum(r["misselected"] == "1" for r in rows),
    )
    assert by_hand[1] > by_hand[2] > 0
    run_id = sqlite3.connect(out / "audit.db").execute("SELECT run_id FROM runs").fetchone()[0]
    store = AuditStore(out / "audit.db")
    try:  # not final, no file asked for: the resume, stop and discard of a recorded run
        summary = export_all(store, run_id, out, logs=False, pairs_csv=False)
    finally:
        store.close()
    assert (summary["pairs"], summary["decisive"], summary["misselected"]) == by_hand
    assert not (out / "audit_pairs.csv").exists()

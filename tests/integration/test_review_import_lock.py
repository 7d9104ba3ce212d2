"""`review import` stores labels while a run writes OUT, but leaves ``report.html`` to the run
(it rewrote it beside the live run, and the run's older figures could land last); a report that
cannot be rewritten does not make stored labels read as lost. Each case says which in its line."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from judgeaudit.audit.store.out_lock import writing
from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli_ok

LABELLED = 3


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("labels")
    write_tasks(folder / "tasks.jsonl", 6)
    spec = write_spec(folder / "spec.toml", tasks="tasks.jsonl")
    cli_ok("run", str(spec), "--out", str(folder / "out"), "--events", "jsonl")
    return folder / "out"


@pytest.fixture
def out(finished: Path, tmp_path: Path) -> Path:
    shutil.copytree(finished, tmp_path / "out")
    return tmp_path / "out"


def labelled_sample(out: Path, where: Path) -> Path:
    """A review sample with the judge's preference copied into the first rows' human one."""
    sample = where / "sample.csv"
    cli_ok("review", "export", str(out), "--n", "8", "--file", str(sample), "--unblind")
    with sample.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows[:LABELLED]:
        row["human_pref"] = row["judge_pref"]
    with sample.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return sample


def labelled(out: Path) -> int:
    report = json.loads(cli_ok("report", str(out), "--format", "json").stdout)
    return int(report["human_review"]["labelled"])


def test_labels_imported_during_a_run_are_stored_and_report_html_is_left_to_the_run(
    out: Path, tmp_path: Path
) -> None:
    sample = labelled_sample(out, tmp_path)
    before = (out / "report.html").read_bytes()
    with writing(out):  # a run holds OUT, as a live one does
        during = cli_ok("review", "import", str(out), str(sample))
    assert during.stdout.strip() == (
        f"stored {LABELLED} labelled pairs (re-importing the same file changes nothing);"
        f" {8 - LABELLED} blank rows skipped;"  # the sample's 8 rows, the rest left blank
        " report.html not rewritten: a run (or an export) is writing OUT; its closing report"
        " will show them"
    )
    assert (out / "report.html").read_bytes() == before
    assert labelled(out) == LABELLED

    after = cli_ok("review", "import", str(out), str(sample))  # the run has ended
    assert after.stdout.strip().endswith(f"; {out / 'report.html'} shows them")
    assert "No human labels yet" in before.decode()
    assert "No human labels yet" not in (out / "report.html").read_text(encoding="utf-8")


def test_a_report_that_cannot_be_rewritten_does_not_hide_that_the_labels_were_stored(
    out: Path, tmp_path: Path
) -> None:
    sample = labelled_sample(out, tmp_path)
    chart = out / "misselection.svg"  # the report's chart, made a directory: no rewrite
    chart.unlink()
    chart.mkdir()
    (chart / "kept").write_text("x")
    done = cli_ok("review", "import", str(out), str(sample))
    line = done.stdout.strip()
    assert line.startswith(f"stored {LABELLED} labelled pairs")
    assert f"; report.html not rewritten: {chart}: " in line
    assert line.endswith(f"(run `judgeaudit export files {out}` to retry)")
    assert labelled(out) == LABELLED

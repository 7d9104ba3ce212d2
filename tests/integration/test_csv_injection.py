"""A name from a user's file that a spreadsheet would run as a formula is written as text in
every CSV a reviewer opens (a new user: ``=HYPERLINK(...)`` as an agent name came out verbatim
in ``audit_pairs.csv``)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli

FORMULA = '=HYPERLINK("http://x.example/","ok")'


def test_formula_names_are_text_in_the_pairs_csv_and_the_report_csv(tmp_path: Path) -> None:
    write_tasks(tmp_path / "tasks.jsonl", 2)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    text = spec.read_text(encoding="utf-8").replace('name = "ace"', "name = '@ace'")
    spec.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    done = cli("run", str(spec), "--out", str(out))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO((out / "audit_pairs.csv").read_text("utf-8"))))
    agents = {row["agent_a"] for row in rows} | {row["agent_b"] for row in rows}
    assert "'@ace" in agents and "@ace" not in agents
    assert not any(v.startswith(("=", "+", "-", "@")) for row in rows for v in row.values())

    labels = f"{FORMULA.replace(',', ';')},b,c,d"
    report = cli("report", str(out), "--format", "csv", "--labels", labels)
    assert report.returncode == 0, report.stderr
    buckets = [row["label"] for row in csv.DictReader(io.StringIO(report.stdout))]
    assert buckets[0] == "'" + FORMULA.replace(",", ";")

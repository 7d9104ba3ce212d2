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


def test_the_review_sample_writes_them_as_text_and_its_import_reads_them_back(
    tmp_path: Path,
) -> None:
    """A review: the one CSV a reviewer is told to open in a spreadsheet was written with
    `to_csv` as is. Its cells are quoted too, and `review import` takes the quote off again:
    the pair ids match, and a note the reviewer starts with "-" comes back as typed."""
    write_tasks(tmp_path / "tasks.jsonl", 2)
    spec = write_spec(tmp_path / "spec.toml", tasks="tasks.jsonl")
    text = spec.read_text(encoding="utf-8").replace('name = "ace"', "name = '@ace'")
    spec.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert cli("run", str(spec), "--out", str(out)).returncode == 0
    sample = tmp_path / "sample.csv"
    done = cli("review", "export", str(out), "--out", str(sample), "--n", "4", "--unblind")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(sample.read_text("utf-8"))))
    cells = [v for row in rows for v in row.values()]
    assert not any(v.startswith(("=", "+", "-", "@")) for v in cells), cells
    assert any(v.startswith("'@ace") for v in cells)
    ours = next(r for r in rows if "'@ace" in (r["agent_a"], r["agent_b"]))
    ours.update(human_success_a="1", human_success_b="0", human_pref="A", note="'- checked")
    with sample.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    stored = cli("review", "import", str(out), str(sample))
    assert stored.returncode == 0, stored.stderr
    import sqlite3

    with sqlite3.connect(out / "audit.db") as db:
        found = db.execute("SELECT pair_id, note FROM human_labels").fetchall()
    assert [(p.startswith("'"), n) for p, n in found] == [(False, "- checked")]

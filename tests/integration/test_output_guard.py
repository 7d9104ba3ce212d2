"""No command writes its output over a file it reads or a file a run directory owns (found by
a new user: `report out/demo --output out/demo/audit.db` replaced the database with the text
report, exit 0, and every later command said "damaged (not SQLite)"; `--output
out/demo/review_sample.csv` replaced a reviewer's filled-in sample). Each is refused in one line
naming the path and what to do, exit 2, the file untouched, with or without --force, by any
spelling of the path (./.., a symlink, a hard link). Any other existing file keeps its
command's rule: report/judges/trend replace an earlier output; export preferences needs --force."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli, cli_ok

REFUSED = "nothing was written; --force does not change this"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("guard")
    write_tasks(folder / "tasks.jsonl", 4)
    spec = write_spec(folder / "a.toml", tasks="tasks.jsonl")
    a, b = folder / "a", folder / "b"
    cli_ok("run", str(spec), "--out", str(a), "--events", "jsonl")
    cli_ok("rejudge", str(a), "--judge-model", "judge-strict", "--out", str(b), "--events", "jsonl")
    cli_ok("review", "export", str(a), "--n", "4")  # a reviewer's sample beside audit.db
    return a, b


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def refused(*args: str, cwd: Path) -> str:
    done = cli(*args, cwd=cwd)
    assert done.returncode == 2, done.stdout[-500:] + done.stderr[-500:]
    (line,) = done.stderr.strip().splitlines()
    assert REFUSED in line, line
    return line


def test_outputs_over_a_runs_own_files_are_refused(runs: tuple[Path, Path]) -> None:
    a, b = runs
    home = a.parent
    (home / "link.db").unlink(missing_ok=True)
    (home / "link.db").symlink_to(a / "audit.db")
    (home / "hard.db").unlink(missing_ok=True)
    os.link(a / "audit.db", home / "hard.db")
    before = {a: digests(a), b: digests(b)}
    line = refused("report", "a", "--output", "a/audit.db", cwd=home)
    assert line.startswith("judgeaudit: --output a/audit.db: is a/audit.db, a file of the run")
    refused("report", "a", "--output", "./b/../a/audit.db-wal", cwd=home)
    refused("report", "a", "--output", "link.db", cwd=home)
    assert "hard link" in refused("report", "a", "--output", "hard.db", cwd=home)
    refused("report", "a", "--output", "a/review_sample.csv", cwd=home)
    refused("report", "a", "--format", "html", "--output", "b/report.html", cwd=home)
    refused("report", "a", "--output", "a/report.html", cwd=home)  # a table over the page
    refused("judges", "a", "b", "--output", "b/audit.db", cwd=home)
    refused("trend", "a", "b", "--output", "b/manifest.json", cwd=home)
    refused("trend", ".", "--output", "a/audit.db", cwd=home)  # a folder of runs
    refused("export", "preferences", "a", "--out", "a/audit.db", "--force", cwd=home)
    refused("export", "preferences", "a", "--out", "b/judge_logs.jsonl", "--force", cwd=home)
    refused("review", "export", "a", "--out", "b/audit_pairs.csv", "--force", cwd=home)
    refused("export", "parquet", "a", "--to", "b", cwd=home)  # b's own Parquet
    # shards' folder named as b's sample: it made the folder b/review_sample.csv/, exit 0
    refused("export", "parquet", "a", "--partition", "day", "--to", "b/review_sample.csv", cwd=home)
    refused("import", "openai-jsonl", "x.jsonl", "--out", "b/audit.db", "--force", cwd=home)
    assert {a: digests(a), b: digests(b)} == before
    cli_ok("report", "a", cwd=home)  # the run still reads


def test_other_files_keep_each_commands_rule(runs: tuple[Path, Path]) -> None:
    a, _ = runs
    home = a.parent
    target = home / "report.txt"
    target.write_text("an earlier report\n")
    cli_ok("report", "a", "--output", "report.txt", cwd=home)  # replaced, as documented
    assert target.read_text().startswith("run ")
    cli_ok("judges", "a", "b", "--output", "report.txt", cwd=home)
    cli_ok("trend", "a", "--output", "report.txt", cwd=home)
    page = cli_ok("report", "a", "--format", "html", "--output", "a/report.html", cwd=home)
    assert page.returncode == 0  # the docs' example: the run's own page, as HTML
    prefs = home / "prefs.jsonl"
    prefs.write_text("{}\n")
    assert cli("export", "preferences", "a", "--out", "prefs.jsonl", cwd=home).returncode == 2
    cli_ok("export", "preferences", "a", "--out", "prefs.jsonl", "--force", cwd=home)
    cli_ok("review", "export", "a", "--n", "4", cwd=home)  # its own sample, unfilled: replaced
    cli_ok("export", "parquet", "a", cwd=home)  # the run's own Parquet: this command's to write
    cli_ok("export", "parquet", "a", "--to", "elsewhere", cwd=home)


def test_another_runs_own_files_are_refused_even_where_this_run_may_write_its_own(
    runs: tuple[Path, Path],
) -> None:
    """review export's sample and export parquet's Parquet are theirs to write in the run they
    read, never in another run (`--force` replaced another run's filled-in sample)."""
    a, b = runs
    home = a.parent
    (b / "review_sample.csv").write_text("a reviewer's own notes\n")
    before = digests(b)
    refused("review", "export", "a", "--out", "b/review_sample.csv", "--force", cwd=home)
    refused("report", "a", "--format", "html", "--output", "b/report.html", cwd=home)
    assert digests(b) == before


def test_another_runs_database_named_in_other_case_is_refused(runs: tuple[Path, Path]) -> None:
    """A review: on a case-insensitive disk (macOS) `b/AUDIT.DB` is run b's database, and the
    name check compared case exactly. The names are compared casefolded (here on a
    case-sensitive disk the file would be another, and is refused all the same)."""
    a, b = runs
    before = digests(b)
    refused("report", str(a), "--output", str(b / "AUDIT.DB"), cwd=a.parent)
    refused("report", str(a), "--output", str(b / "Audit.db-WAL"), cwd=a.parent)
    assert digests(b) == before and not (b / "AUDIT.DB").exists()

"""Three lines a new user read as wrong (twenty-first session): `import recorded-jsonl
out/demo/audit.db` said "not UTF-8" (it is an SQLite database: an audit); `report` of a folder
of runs suggested `run SPEC --out FOLDER` (it is a folder of runs: `trend` reads them all).
(`judges OUT OUT` is in test_unfinished_left_out.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit_helpers import write_spec, write_tasks
from tests.cli_helpers import cli, cli_ok


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("s21")
    write_tasks(folder / "tasks.jsonl", 2)
    spec = write_spec(folder / "spec.toml", tasks="tasks.jsonl")
    for name in ("day1", "day2"):
        cli_ok("run", str(spec), "--out", str(folder / "runs" / name), "--events", "jsonl")
    return folder / "runs"


@pytest.mark.parametrize(
    "args",
    [
        ("import", "recorded-jsonl", "{db}", "--out", "{tmp}/pairs.jsonl"),
        ("import", "tau-bench", "{db}", "--out", "{tmp}/pairs.jsonl"),
        ("import", "recorded-jsonl", "{db}", "--parquet", "{tmp}/history"),
        ("run", "{db}", "--out", "{tmp}/out"),
    ],
)
def test_an_audit_given_as_a_text_file_is_named_a_database(
    runs: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    db = runs / "day1" / "audit.db"
    done = cli(*(a.format(db=db, tmp=tmp_path) for a in args))
    assert done.returncode == 2
    assert done.stderr == (
        f"judgeaudit: {db}: is an SQLite database (an audit's audit.db?), not a text file; give"
        " the JSONL, JSON or TOML file itself (an audit is read by `judgeaudit report DIR`,"
        " judged again by `judgeaudit rejudge DIR`)\n"
    )
    assert not any(tmp_path.iterdir())


def test_a_folder_of_runs_is_said_to_be_one_with_trend_suggested(runs: Path) -> None:
    for given in (runs, runs.parent):  # the runs' folder, and the folder above it
        done = cli("report", str(given))
        assert done.returncode == 2
        assert done.stderr == (
            f"judgeaudit: {given}: a folder of runs (2 output directories, e.g. {runs}/day1),"
            f" not one run; give one of them, or follow them all with `judgeaudit trend {runs}`\n"
        )
    cli_ok("trend", str(runs))  # the suggestion works

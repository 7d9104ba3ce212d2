"""Paths the file system cannot name or judgeaudit cannot record: a name over the file system's
limit, a name whose bytes are not UTF-8. Each was "unexpected error (OSError); this is a bug",
exit 70 (a new user); the non-UTF-8 OUT after the run had stored its rows. Now one line, exit
2, nothing written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli_helpers import cli

LONG = "d" * 300  # over the 255 bytes a name of ext4, tmpfs, xfs, btrfs
NOT_UTF8 = os.fsdecode(b"bad\xff\xfedir")  # what Python makes of those bytes in argv

COMMANDS = {
    "report": ["report", "{path}"],
    "run": ["run", "{spec}", "--out", "{path}"],
    "trend": ["trend", "{path}"],
    "import": ["import", "recorded-jsonl", "{log}", "--out", "{path}/pairs.jsonl"],
}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def argv(command: str, path: str) -> list[str]:
    values = {
        "path": path,
        "spec": str(EXAMPLES / "demo.toml"),
        "log": str(EXAMPLES / "rollouts" / "recorded-verdicts.jsonl"),
    }
    return [word.format(**values) for word in COMMANDS[command]]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_name_too_long_is_one_line(tmp_path: Path, command: str) -> None:
    done = cli(*argv(command, LONG), cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"judgeaudit: {'d' * 40}… (300 bytes): a file or folder name too long for the file "
        "system (usually 255 bytes a name); choose a shorter one"
    ], done.stderr
    assert "this is a bug" not in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_name_that_is_not_utf8_is_refused_before_anything_is_written(
    tmp_path: Path, command: str
) -> None:
    words = argv(command, NOT_UTF8)
    done = cli(*words, cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    place = next(i for i, w in enumerate(words, start=1) if NOT_UTF8 in w)
    # the word is never shown (it may be a password typed in the wrong place): where it is
    option = words[place - 2]
    of = f", the value of {option}" if option.startswith("-") else ""
    assert done.stderr.strip().splitlines() == [
        f"judgeaudit: argument {place}{of} is not valid UTF-8 (not shown); judgeaudit records "
        "its arguments as UTF-8 text: rename the file or folder, or retype the value"
    ]
    assert "bad" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_report_and_trend_work_in_a_folder_whose_name_is_not_utf8(tmp_path: Path) -> None:
    """In such a folder `report d2` and `trend d2` were "unexpected error (OperationalError);
    this is a bug": the report asked SQLite for the database's path, which it could not hand
    back as text (a new user). The path is asked only where it is used (a run of 200,000 pairs
    and more), and a path SQLite cannot decode runs the scans one after the other."""
    import shutil

    from tests.audit_helpers import finished_run

    built = tmp_path / "built"
    built.mkdir()
    finished_run(built, 3, name="d2")
    folder = tmp_path / NOT_UTF8
    folder.mkdir()
    shutil.move(built / "d2", folder / "d2")  # a run made elsewhere, looked at from here
    for words in (("report", "d2"), ("trend", "d2", "--output", "t.html")):
        done = cli(*words, cwd=folder, timeout=120)
        assert done.returncode == 0, done.stderr


def test_an_option_given_with_its_value_is_not_shown_beside_a_word_that_is_not_utf8(
    tmp_path: Path,
) -> None:
    """`report --label=hunter2-Secret! $'\\xff'` said "the value of --label=hunter2-Secret!":
    wrong (that option has its value) and it showed a value (reviewer)."""
    done = cli("report", "--label=hunter2-Secret!", NOT_UTF8, cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "hunter2" not in done.stderr and "argument 3 is not valid UTF-8" in done.stderr


def test_a_large_runs_scans_run_serially_where_sqlite_cannot_name_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The branch of the fix above that the CLI test never reaches (its run is small, so the
    path is never asked): a run counted large, in a folder whose name is not UTF-8, where
    SQLite's ``PRAGMA database_list`` cannot hand back the path. The report is built (the scans
    one after the other) and equals the one built where the path can be read."""
    import shutil

    from judgeaudit.analysis.report import ReportOptions, build_report
    from tests.audit_helpers import finished_run

    built = tmp_path / "built"
    built.mkdir()
    run = finished_run(built, 3, name="d2")
    monkeypatch.setattr("judgeaudit.analysis.aggregate.PARALLEL_FROM", 1)  # every run is large
    readable = build_report(run, ReportOptions())
    folder = tmp_path / NOT_UTF8
    folder.mkdir()
    shutil.move(run, folder / "d2")
    moved = build_report(folder / "d2", ReportOptions())
    for key in ("pairs", "decisive", "misselected", "buckets", "by_models"):
        assert moved[key] == readable[key], key

"""Issue 27's one bounded reader on a surface added since: a Parquet history's run records
(``period=…/RUN.run.json`` beside each shard, read by ``report --engine duckdb`` and ``trend``).
A FIFO there blocked both forever, a 2 GB sparse file was read whole, and deep nesting reached
the recursive parser; each is now one line, exit 2. And a folder of daily recorded-verdict logs
whose file does not read: refused with the folder left as it was."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.badinput.hostile_cases import SPARSE, SPARSE_SIZE
from tests.cli_helpers import cli

ROLLOUTS = Path(__file__).resolve().parents[2] / "examples" / "rollouts"


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("history") / "h"
    done = cli(
        "import", "recorded-jsonl", str(ROLLOUTS / "recorded-verdicts.jsonl"),
        "--period", "2026-11-01", "--parquet", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def spoil(records: Path, how: str) -> None:
    records.unlink()
    if how == "fifo":
        os.mkfifo(records)
    elif how == "sparse":
        with records.open("wb") as handle:
            handle.truncate(SPARSE_SIZE)
    else:
        records.write_text("[" * 100_000)


@pytest.mark.parametrize(
    ("how", "needle"),
    [("fifo", "is a FIFO"), ("sparse", "over the 256 MB limit"), ("deep", "nested too deeply")],
)
def test_spoilt_run_records_are_one_line_and_never_block(
    history: Path, tmp_path: Path, how: str, needle: str
) -> None:
    copy = tmp_path / "h"
    shutil.copytree(history, copy)
    (records,) = copy.glob("period=*/*.run.json")
    spoil(records, how)
    for args in (("report", str(copy), "--engine", "duckdb"), ("trend", str(copy))):
        done = cli(*args, timeout=120)  # a FIFO read would block past this
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, (args, done.stderr)
        assert str(records) in lines[0] and needle in lines[0], lines[0]


@pytest.mark.parametrize(
    ("content", "needle"),
    [(b"not json\n", "not valid JSON"), (SPARSE, "a line longer than 64 MB")],
    ids=["garbage", "sparse-2gb"],
)
def test_a_refused_daily_log_leaves_no_work_dir(
    tmp_path: Path, content: bytes, needle: str
) -> None:
    """``trend LOGS`` on a folder whose only daily file does not read: one line, exit 2, and
    the folder as it was (an empty ``.judgeaudit-trend`` was left behind)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    day = logs / "2026-01-01.jsonl"
    if content == SPARSE:
        with day.open("wb") as handle:
            handle.truncate(SPARSE_SIZE)
    else:
        day.write_bytes(content)
    done = cli("trend", str(logs), timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert needle in lines[0], lines[0]
    assert sorted(p.name for p in logs.iterdir()) == [day.name], "a refused trend wrote here"

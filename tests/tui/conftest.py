"""TUI test fixtures: one small real audit run (the isolation fixture is tests/conftest.py's)."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.runner import AuditRunner
from tests.audit_helpers import write_spec
from tests.cli_helpers import cli

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real audit (3 agents, the built-in tasks, embedded provider) to browse in the app."""
    base = tmp_path_factory.mktemp("tui-run")
    spec = write_spec(base / "spec.toml")
    asyncio.run(AuditRunner(load_spec(spec), base / "out").run())
    pin_clock(base / "out")
    return base / "out"


#: every run of the fixtures says it was made at this time, so pictures of the run list are the
#: same from one test session to the next
PINNED_CREATED = "2026-01-02 03:04:05"


def pin_clock(out: Path) -> None:
    """Write fixed creation times over the clock's in the directory's audit.db, one second
    apart in the order the runs were made (so "the other run" stays the same one)."""
    with closing(sqlite3.connect(out / "audit.db")) as db, db:
        runs = db.execute("SELECT run_id FROM runs ORDER BY created_at, rowid").fetchall()
        for second, (run_id,) in enumerate(runs):
            stamp = PINNED_CREATED[:-2] + f"{5 + second:02d}"
            db.execute("UPDATE runs SET created_at = ? WHERE run_id = ?", (stamp, run_id))


@pytest.fixture
def run_copy(small_run: Path, tmp_path: Path) -> Path:
    """A private copy (review labels are written to the DB)."""
    target = tmp_path / "run"
    shutil.copytree(small_run, target)
    return target


#: the same conversations judged again by a judge that weighs style over evidence
REJUDGE_MODEL = "judge-default:diligence=0,evidence=0.2,style=0.8"


@pytest.fixture(scope="session")
def small_rejudged(small_run: Path) -> Path:
    """`judgeaudit rejudge` of the small run with another judge: a paired comparison."""
    out = small_run.parent / "rejudged"
    done = cli(
        "rejudge", str(small_run), "--out", str(out), "--judge-model", REJUDGE_MODEL,
        "--events", "jsonl", cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    pin_clock(out)
    return out


@pytest.fixture
def rejudged_copy(small_rejudged: Path, run_copy: Path, tmp_path: Path) -> Path:
    """A private copy of the re-judged run beside `run_copy` (tmp_path/rejudged)."""
    target = tmp_path / "rejudged"
    shutil.copytree(small_rejudged, target)
    return target

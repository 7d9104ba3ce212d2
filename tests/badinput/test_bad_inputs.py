"""Every row of the bad-input table: exit code, one line naming the file/field, no traceback,
and nothing written (the directory is byte-for-byte as it was, and no OUT appeared)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judgeaudit.cli import main
from tests.badinput.cases import CASES as BASE_CASES
from tests.badinput.cases import Case
from tests.badinput.hostile_cases import FIFO, HOSTILE_CASES, KEYLIKE, SPARSE, SPARSE_SIZE
from tests.badinput.import_cases import IMPORT_CASES

CASES = [*BASE_CASES, *IMPORT_CASES, *HOSTILE_CASES]


def tree(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_dir():
            out[rel] = "dir"
        elif not path.is_file():
            out[rel] = "special"  # a FIFO: reading it would block
        elif path.stat().st_size >= SPARSE_SIZE:
            out[rel] = f"sparse {path.stat().st_size} {path.stat().st_mtime_ns}"
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def setup(case: Case, tmp: Path) -> None:
    for name, content in case.files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content == FIFO:
            os.mkfifo(path)
        elif content == SPARSE:
            with path.open("wb") as handle:
                handle.truncate(SPARSE_SIZE)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content.replace("{tmp}", str(tmp)), encoding="utf-8")


def check(case: Case, tmp: Path, code: int, stderr: str, before: dict[str, str]) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert code == case.code, stderr
    assert "Traceback" not in stderr
    assert KEYLIKE not in stderr, "a key was echoed"
    assert len(lines) == 1, f"one line expected, got: {stderr!r}"
    for needle in case.needles:
        assert needle.replace("{tmp}", str(tmp)) in lines[0], lines[0]
    assert tree(tmp) == before, "a refused command wrote something"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_refused_with_one_line_and_nothing_written(
    case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEAUDIT_LOG_DIR", str(tmp_path / "logs"))  # a crash would show here
    monkeypatch.delenv("JUDGEAUDIT_TEST_UNSET_KEY", raising=False)
    setup(case, tmp_path)
    before = tree(tmp_path)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in case.argv]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refusals
        code = int(exc.code or 0)
    check(case, tmp_path, code, capsys.readouterr().err, before)


@pytest.mark.parametrize(
    "case_id",
    [
        "concurrency-0",
        "tasks-not-utf8",
        "pairs-agent-twice-different",
        "out-is-a-file",
        "import-fifo-tau-bench",
        "report-db-fifo",
        "run-db-truncated",
    ],
)
def test_same_through_the_installed_command(case_id: str, tmp_path: Path) -> None:
    """A few rows again as a user runs them: a real process, its real exit code and stderr."""
    case = next(c for c in CASES if c.id == case_id)
    setup(case, tmp_path)
    before = tree(tmp_path)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in case.argv]
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "JUDGEAUDIT_LOG_DIR": str(tmp_path / "logs")},
    )
    check(case, tmp_path, done.returncode, done.stderr, before)

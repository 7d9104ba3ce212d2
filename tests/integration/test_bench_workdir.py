"""The benchmarks CI runs on every push leave nothing in the temporary directory: without
``--dir`` their working folder (MBs: a recorded run, its Parquet, the exports) is removed at
the end, also when the benchmark fails, unless ``--keep`` (a new user's report: 6+ MB a run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # bench.*

from bench.workdir import work_dir  # noqa: E402

pytestmark = pytest.mark.slow


def _bench(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


@pytest.mark.parametrize(
    "args",
    [
        ("bench/recorded_scale.py", "--pairs", "100"),
        ("bench/export_preferences.py", "--pairs", "100", "--formats", "trl"),
    ],
)
def test_a_benchmark_without_dir_leaves_nothing(tmp_path: Path, args: tuple[str, ...]) -> None:
    _bench(tmp_path, *(str(REPO / args[0]), *args[1:]))
    assert list(tmp_path.iterdir()) == []


def test_keep_keeps_the_folder_and_says_where(tmp_path: Path) -> None:
    done = _bench(tmp_path, str(REPO / "bench/recorded_scale.py"), "--pairs", "50", "--keep")
    (kept,) = tmp_path.iterdir()
    assert f"kept {kept}" in done.stderr and (kept / "out" / "audit.db").is_file()


def test_a_failed_benchmark_removes_its_folder_and_dir_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    with pytest.raises(RuntimeError), work_dir(None, "b-") as work:
        (work / "big").write_bytes(b"x" * 1000)
        raise RuntimeError("the benchmark failed")
    assert list((tmp_path / "tmp").iterdir()) == []
    mine = tmp_path / "mine"
    with work_dir(mine, "b-") as work:
        (work / "kept").write_text("x")
    assert (mine / "kept").is_file()

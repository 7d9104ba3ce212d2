"""Every stored picture of the app belongs to a test that compares against it.

syrupy fails a session on snapshot files no test reads, but not under pytest-xdist, which the
suite runs with (`scripts/test.sh`): a picture left behind by a renamed or deleted test would
then go unnoticed and mislead whoever reads `tests/tui/__snapshots__`. This test collects the
snapshot tests and names each file without one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SNAPSHOTS = Path(__file__).parent / "__snapshots__"
REPO = Path(__file__).resolve().parents[2]


def collected_ids(modules: list[str]) -> set[str]:
    """``module/test_id`` of every test the snapshot modules hold, as syrupy names its files."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         *(f"tests/tui/{module}.py" for module in modules)],
        capture_output=True, text=True, timeout=300, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    ids = set()
    for line in done.stdout.splitlines():
        if "::" in line:
            path, test_id = line.split("::", 1)
            ids.add(f"{Path(path).stem}/{test_id}")
    return ids


def test_every_snapshot_file_has_a_test_that_reads_it() -> None:
    modules = sorted(d.name for d in SNAPSHOTS.iterdir() if d.is_dir())
    assert modules, f"no snapshot folders under {SNAPSHOTS}"
    files = {f"{p.parent.name}/{p.stem}" for p in SNAPSHOTS.glob("*/*.svg")}
    unread = sorted(files - collected_ids(modules))
    assert not unread, f"snapshot files no test reads (delete them, or restore the test): {unread}"

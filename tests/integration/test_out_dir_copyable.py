"""An output directory a user can copy as it is: after the demo, a report and the Parquet
exports, every file is private (0600, like audit.db and the CSV) and audit.db is one
self-contained file, with no ``audit.db-wal``/``-shm`` left beside it.

Before: DuckDB wrote ``audit_pairs.parquet`` (at the run's end and by ``export parquet``) and its
shards with the umask's 0644, and every read-only reader (the demo's own report) left SQLite's
``-wal`` and ``-shm`` beside a WAL-mode audit.db, which a read-only connection cannot remove.
"""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from tests.cli_helpers import cli


def _modes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): oct(stat.S_IMODE(p.stat().st_mode))
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("copyable") / "demo"
    done = cli("demo", "--no-tui", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def test_after_the_demo_audit_db_is_one_file_and_every_file_is_private(demo: Path) -> None:
    modes = _modes(demo)
    assert "audit_pairs.parquet" in modes and "report.html" in modes
    assert not [name for name in modes if name.startswith("audit.db-")], modes
    assert set(modes.values()) == {"0o600"}, modes
    # a report (read-only readers) leaves nothing beside it either, and the copy reads alone
    assert cli("report", str(demo), "--format", "json").returncode == 0
    assert sorted(_modes(demo)) == sorted(modes)
    db = sqlite3.connect(f"file:{demo / 'audit.db'}?mode=ro", uri=True)
    assert db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0] > 0
    db.close()


def test_export_parquet_writes_the_copy_and_its_shards_private(demo: Path, tmp_path: Path) -> None:
    parquet = demo / "audit_pairs.parquet"
    parquet.chmod(0o644)  # as an earlier release left it: the rewrite makes it private
    assert cli("export", "parquet", str(demo)).returncode == 0
    assert oct(stat.S_IMODE(parquet.stat().st_mode)) == "0o600"
    shards = tmp_path / "shards"
    done = cli("export", "parquet", str(demo), "--to", str(shards), "--partition", "period")
    assert done.returncode == 0, done.stderr
    modes = _modes(shards)
    assert modes and set(modes.values()) == {"0o600"}, modes
    assert not [name for name in _modes(demo) if name.startswith("audit.db-")]

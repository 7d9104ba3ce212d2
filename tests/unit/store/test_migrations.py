"""audit.db carries a schema version; an older file (today's release, committed) is migrated."""

from __future__ import annotations

import gzip
import shutil
import sqlite3
from pathlib import Path

import pytest

from judgeaudit.audit.store import SCHEMA_VERSION, AuditStore, SchemaError, open_readonly
from judgeaudit.audit.store.schema import MIGRATIONS

FIXTURE = Path(__file__).parents[2] / "fixtures" / "store" / "audit-f31e989.db.gz"


def _old_db(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    with gzip.open(FIXTURE) as src, (out / "audit.db").open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return out / "audit.db"


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in db.execute(f"PRAGMA table_info({table})")}


def test_migrations_are_numbered_in_order() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    assert MIGRATIONS[-1].version == SCHEMA_VERSION


def test_the_release_before_versioning_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    path = _old_db(tmp_path)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 0  # unversioned, as released
    raw.execute("ALTER TABLE trajectories DROP COLUMN copied_from")  # as a wave-1 file lacks it
    assert "copied_from" not in _columns(raw, "trajectories")
    pairs_before = raw.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0]
    raw.close()
    assert pairs_before > 0

    AuditStore(path).close()

    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert "copied_from" in _columns(db, "trajectories")
    assert db.execute("SELECT COUNT(*) FROM audit_pairs").fetchone()[0] == pairs_before
    db.close()


def test_a_reader_migrates_an_older_file_first(tmp_path: Path) -> None:
    path = _old_db(tmp_path)
    db = open_readonly(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        db.execute("DELETE FROM runs")
    db.close()


def test_a_file_from_a_newer_release_is_refused_in_one_line(tmp_path: Path) -> None:
    path = _old_db(tmp_path)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    for opener in (open_readonly, AuditStore):
        with pytest.raises(SchemaError, match="newer judgeaudit") as caught:
            opener(path)
        assert "\n" not in str(caught.value)


def test_the_cli_reports_an_older_run_and_refuses_a_newer_file(tmp_path: Path) -> None:
    from tests.cli_helpers import cli

    path = _old_db(tmp_path)
    shown = cli("report", str(path.parent), "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert '"misselected"' in shown.stdout
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    refused = cli("report", str(path.parent))
    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0
    assert "newer judgeaudit" in refused.stderr


def test_the_schema_page_is_generated_from_the_migrations() -> None:
    import runpy

    gen = runpy.run_path(str(Path(__file__).parents[3] / "scripts" / "gen_schema_docs.py"))
    page = Path(__file__).parents[3] / "docs" / "schema.md"
    assert page.read_text(encoding="utf-8") == gen["render"](), "run scripts/gen_schema_docs.py"

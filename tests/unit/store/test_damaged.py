"""Every writer of ``audit.db`` refuses a damaged file in one line, as readers do, and leaves
it byte for byte as it was (a new user's truncated copy crashed ``run`` with exit 70)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from judgeaudit.analysis.label_import import clear_label, import_labels
from judgeaudit.audit.store import AuditStore, open_readonly
from judgeaudit.errors import InputError
from tests.badinput.cases import truncated_db

LABEL = {"pair_id": "p", "human_success_a": 1, "human_success_b": 0, "human_pref": "A"}


def _store(out: Path) -> None:
    AuditStore(out / "audit.db").close()


WRITERS: dict[str, Callable[[Path], object]] = {
    "store": _store,
    "label import": lambda out: import_labels(out, [LABEL]),
    "label clear": lambda out: clear_label(out, "p"),
    "reader (migrates an older file)": lambda out: open_readonly(out / "audit.db"),
}


@pytest.mark.parametrize(
    "damage",
    [truncated_db(), b"SQLite format 3\x00" + bytes(84)],
    ids=["truncated", "header-only"],
)
@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_damaged_audit_db_is_refused_and_left_as_it_is(
    tmp_path: Path, writer: str, damage: bytes
) -> None:
    db = tmp_path / "audit.db"
    db.write_bytes(damage)
    with pytest.raises(InputError) as refused:
        WRITERS[writer](tmp_path)
    line = str(refused.value)
    assert line.startswith(f"{db}: damaged (") and "\n" not in line
    assert "restore it from a copy, or run the audit into a new --out directory" in line
    assert db.read_bytes() == damage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.db"]  # no -wal, -shm, journal

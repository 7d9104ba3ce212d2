"""A passed column check remembered across processes (issue 23, goal 5): a later process skips
the scan of an unchanged file, and an edit, a copy, a restored file or a racy change is checked
again; a garbage or unwritable cache costs nothing but the scan."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgeaudit.audit.store import check_memo, column_check, open_readonly
from judgeaudit.audit.store.check_memo import MEMO, RACY_NS
from judgeaudit.audit.store.column_check import ColumnTypeError
from tests.unit.store.test_column_check import one_pair

HOUR = 3600


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[str]]:
    """The tables scanned, in a fresh "process" (the in-process memo emptied) each time the
    test calls ``new_process``; the cache in ``tmp_path/cache``; the clock 10 s ahead, so a
    file written by the test counts as settled."""
    monkeypatch.setenv("JUDGEAUDIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(column_check, "_checked", set())
    later = time.time_ns() + 10 * 10**9
    monkeypatch.setattr(check_memo, "now_ns", lambda: later)
    seen: list[str] = []
    real = column_check._check_table

    def counted(db: sqlite3.Connection, path: Path, table: str, rules: list[object]) -> None:
        seen.append(table)
        real(db, path, table, rules)  # type: ignore[arg-type]

    monkeypatch.setattr(column_check, "_check_table", counted)
    yield seen


def new_process() -> None:
    column_check._checked.clear()


def settled(path: Path) -> Path:
    one_pair(path)
    os.utime(path, (time.time() - HOUR, time.time() - HOUR))
    return path


def edit(path: Path, sql: str) -> None:
    time.sleep(0.01)  # past the filesystem's timestamp tick
    db = sqlite3.connect(path)
    db.execute(sql)
    db.commit()
    db.close()


def test_a_later_process_skips_the_scan_of_an_unchanged_file(
    tmp_path: Path, scans: list[str]
) -> None:
    path = settled(tmp_path / "audit.db")
    open_readonly(path).close()
    assert "audit_pairs" in scans
    scans.clear()
    new_process()
    open_readonly(path).close()
    assert scans == []
    assert (tmp_path / "cache" / MEMO).is_file()


def test_an_edit_after_a_remembered_pass_is_refused(tmp_path: Path, scans: list[str]) -> None:
    path = settled(tmp_path / "audit.db")
    open_readonly(path).close()
    edit(path, "UPDATE audit_pairs SET success_a = 'x'")
    new_process()
    with pytest.raises(
        ColumnTypeError, match=re.escape("audit_pairs.success_a of pair 'r1/t/0/a~b'")
    ):
        open_readonly(path)


def test_an_edit_with_size_and_mtime_put_back_is_refused(tmp_path: Path, scans: list[str]) -> None:
    """``cp -p`` of a tampered file over the checked one keeps inode, size and mtime; not ctime."""
    path = settled(tmp_path / "audit.db")
    before = os.stat(path)
    open_readonly(path).close()
    edit(path, "UPDATE audit_pairs SET judge_pref = 'C'")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    new_process()
    with pytest.raises(ColumnTypeError, match="judge_pref"):
        open_readonly(path)


def test_a_copy_is_checked_again(tmp_path: Path, scans: list[str]) -> None:
    path = settled(tmp_path / "audit.db")
    open_readonly(path).close()
    copy = tmp_path / "copy" / "audit.db"
    copy.parent.mkdir()
    shutil.copy2(path, copy)
    scans.clear()
    new_process()
    open_readonly(copy).close()
    assert "audit_pairs" in scans


def test_a_file_written_within_the_racy_window_is_not_remembered(
    tmp_path: Path, scans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a filesystem with coarse timestamps, an edit in the same tick would keep every field."""
    path = tmp_path / "audit.db"
    one_pair(path)
    written = os.stat(path).st_mtime_ns
    monkeypatch.setattr(check_memo, "now_ns", lambda: written + RACY_NS - 1)
    open_readonly(path).close()
    scans.clear()
    new_process()
    open_readonly(path).close()
    assert "audit_pairs" in scans


@pytest.mark.parametrize(
    "garbage", [b"", b"\x00\xff not json", b"[1, 2]", b'{"version": 1, "passed": 7}']
)
def test_a_garbage_cache_is_ignored(tmp_path: Path, scans: list[str], garbage: bytes) -> None:
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / MEMO).write_bytes(garbage)
    path = settled(tmp_path / "audit.db")
    open_readonly(path).close()
    assert "audit_pairs" in scans
    new_process()
    scans.clear()
    open_readonly(path).close()  # the garbage was replaced by a good memo
    assert scans == []


def test_an_unwritable_cache_still_checks(
    tmp_path: Path, scans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory would be")
    monkeypatch.setenv("JUDGEAUDIT_CACHE_DIR", str(blocker / "cache"))
    path = settled(tmp_path / "audit.db")
    open_readonly(path).close()
    edit(path, "UPDATE audit_pairs SET success_a = 'x'")
    new_process()
    with pytest.raises(ColumnTypeError, match="success_a"):
        open_readonly(path)


def test_a_cache_others_can_write_is_not_trusted(tmp_path: Path, scans: list[str]) -> None:
    path = settled(tmp_path / "audit.db")
    open_readonly(path).close()
    (tmp_path / "cache" / MEMO).chmod(0o666)
    scans.clear()
    new_process()
    open_readonly(path).close()
    assert "audit_pairs" in scans


def test_the_cache_can_be_turned_off(
    tmp_path: Path, scans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEAUDIT_CACHE_DIR", "")
    path = settled(tmp_path / "audit.db")
    open_readonly(path).close()
    scans.clear()
    new_process()
    open_readonly(path).close()
    assert "audit_pairs" in scans
    assert not (tmp_path / "cache").exists()

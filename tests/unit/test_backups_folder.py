"""The config dir's ``backups/`` is its owner's alone (a new user's trial, twentieth session):
made with the umask's 0755, anyone on the machine could list which tools were switched when,
though each file in it is 0600. It is made 0700, and one made 0755 before is tightened by the
next backup."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgeaudit.profiles import backups
from judgeaudit.profiles.store import ProfileStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)  # the usual one: what left the folder listable
    yield
    os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _backup(store: ProfileStore, tmp_path: Path) -> str:
    return backups.save(store, "claude", tmp_path / "settings.json", b"{}\n", "p")


@pytest.mark.usefixtures("umask_022")
def test_the_backups_folder_is_made_0700(isolated: ProfileStore, tmp_path: Path) -> None:
    folder = backups.backup_dir(isolated)
    assert not folder.exists()
    made = _backup(isolated, tmp_path)
    assert _mode(folder) == 0o700
    assert _mode(folder / f"{made}.bak") == 0o600


@pytest.mark.usefixtures("umask_022")
def test_a_listable_backups_folder_is_tightened_by_the_next_backup(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    folder = backups.backup_dir(isolated)
    folder.mkdir(parents=True, mode=0o755)  # what an earlier version left
    os.chmod(folder, 0o755)
    (folder / "claude-20261201T000000-1.bak").write_bytes(b"{}\n")
    _backup(isolated, tmp_path)
    assert _mode(folder) == 0o700
    assert (folder / "claude-20261201T000000-1.bak").exists()  # nothing else changed

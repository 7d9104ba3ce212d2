"""Two pytest-xdist workers never share a keyring (`own_keyring_per_worker` in tests/conftest.py).

scripts/test.sh runs the suite on two workers; keyring tests reuse item names, so on one shared
Secret Service a test on one worker overwrote or deleted the keys of a test on the other (the
5,000-key import lost a key to the 7-key test's clean-up). Two tests here write the same item,
wait, and read it back, on two workers: both pass only when each worker has its own keyring.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

SAME_ITEM = """
import time

import keyring


def _keeps(value):
    keyring.set_password("judgeaudit-worker-check", "shared", value)
    time.sleep(3)
    assert keyring.get_password("judgeaudit-worker-check", "shared") == value


def test_a():
    _keeps("a")


def test_b():
    _keeps("b")
"""


@pytest.mark.usefixtures("secret_service")
def test_two_workers_writing_one_item_keep_their_own_values(tmp_path: Path) -> None:
    (tmp_path / "test_same_item.py").write_text(SAME_ITEM, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
         "-p", "tests.conftest", "--rootdir", str(tmp_path), str(tmp_path / "test_same_item.py")],
        capture_output=True, text=True, timeout=240, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout

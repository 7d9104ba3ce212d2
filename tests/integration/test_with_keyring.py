"""scripts/with-keyring.sh, which CI runs the whole suite in: the command's exit status is the
script's (its clean-up must never turn a passing run into a failing one, as a racy `rm -rf` of
a stopping daemon's run dir once did), and the throwaway keyring dir is gone afterwards."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "with-keyring.sh"
#: The outer session's keyring: the child must start its own, not clean up this one.
OUTER = ("JUDGEAUDIT_PRIVATE_DBUS", "JUDGEAUDIT_KEYRING_HOME", "DBUS_SESSION_BUS_ADDRESS")


@pytest.mark.slow
@pytest.mark.parametrize("status", [0, 3])
def test_the_command_status_is_kept_and_the_keyring_dir_removed(
    tmp_path: Path, status: int
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in OUTER and not k.startswith("XDG_")}
    env["TMPDIR"] = str(tmp_path)
    done = subprocess.run(
        [str(SCRIPT), "sh", "-c", f'echo "$JUDGEAUDIT_KEYRING_HOME"; exit {status}'],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == status, done.stderr
    home = Path(done.stdout.strip().splitlines()[-1])
    assert home.parent == tmp_path
    assert not home.exists(), f"left behind: {sorted(p.name for p in home.rglob('*'))}"
    assert "could not remove" not in done.stderr

"""What the new-user defect tests share: a fresh HOME with the config dirs, and the CLI run
in it as a user's shell would (with the real Secret Service keyring)."""

from __future__ import annotations

import secrets as pysecrets
import subprocess
from pathlib import Path

import pytest

from tests.cli_helpers import cli as run_cli
from tests.cli_helpers import make_world, world_env


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return make_world(tmp_path)


def cli(
    home: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**world_env(home), **(env or {})}
    return run_cli(*args, env=env, cwd=home / "work", stdin=stdin, timeout=120)


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The single stderr line of a refusal (and no traceback)."""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def add(home: Path, name: str, app: str, base_url: str, *extra: str) -> None:
    done = cli(home, "profile", "add", name, "--app", app, "--base-url", base_url, *extra)
    assert done.returncode == 0, done.stderr


def unique(prefix: str) -> str:
    """A keyring entry name no other test run uses (the Secret Service is shared per session)."""
    return f"{prefix}-{pysecrets.token_hex(6)}"


#: For a test that switches a keyring profile in without caring where the key lives: outside
#: scripts/with-keyring.sh the only backend is the plaintext file one, and a switch refuses a
#: keyring that cannot answer (tests/integration/test_switch_keyring_refused.py).
KEYRING_OK = {"JUDGEAUDIT_ALLOW_PLAINTEXT_KEYRING": "1"}

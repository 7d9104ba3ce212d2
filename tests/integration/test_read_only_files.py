"""A live file its owner made read-only (chmod 0444) means "do not touch", to every command
that writes one: ``use`` and ``off`` refused it, ``restore`` wrote over it (the atomic rename
succeeds on a read-only file). ``--dry-run`` refused before showing anything; it shows the diff
and says the switch itself will refuse. Real files, the real CLI, the keyring-backed world."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.integration.test_profile_bad_input import cli, snapshot

pytestmark = pytest.mark.usefixtures("secret_service")

#: per app: the profile switched on, the live file made read-only, what it held first
APPS = {
    "claude": ("taotoken-claude", "claude/settings.json", b'{"theme": "dark"}\n'),
    "codex": ("taotoken-codex", "codex/config.toml", b'model = "o3"\n'),
}


def world(tmp_path: Path, app: str) -> Path:
    for name in ("cfg", "claude", "codex", "home"):
        (tmp_path / name).mkdir()
    _, rel, first = APPS[app]
    (tmp_path / rel).write_bytes(first)
    return tmp_path / rel


def one_error(stderr: str) -> str:
    """The command's own error line (a switch's warnings may come before it)."""
    errors = [line for line in stderr.splitlines() if line.startswith("judgeaudit: ")]
    assert len(errors) == 1 and "Traceback" not in stderr, stderr
    return errors[0]


@pytest.mark.parametrize("app", sorted(APPS))
def test_restore_onto_a_read_only_file_is_refused_and_writes_nothing(
    tmp_path: Path, app: str
) -> None:
    live = world(tmp_path, app)
    assert cli(tmp_path, "profile", "use", APPS[app][0]).returncode == 0
    listed = cli(tmp_path, "profile", "backups").stdout
    backup_id = next(line.split()[0] for line in listed.splitlines() if live.name in line)
    live.chmod(0o444)
    before = snapshot(tmp_path)
    done = cli(tmp_path, "profile", "restore", backup_id)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1, done.stderr  # one line
    line = one_error(done.stderr)
    assert f"{live}: is read-only (mode 0444)" in line and f"chmod u+w {live}" in line
    assert snapshot(tmp_path) == before  # nothing written, no new backup
    assert backup_id in cli(tmp_path, "profile", "backups").stdout  # the backup kept
    live.chmod(0o644)
    assert cli(tmp_path, "profile", "restore", backup_id).returncode == 0  # and still usable
    assert live.read_bytes() == APPS[app][2]


@pytest.mark.parametrize("app", sorted(APPS))
def test_a_dry_run_onto_a_read_only_file_shows_the_diff_and_says_the_switch_will_refuse(
    tmp_path: Path, app: str
) -> None:
    live = world(tmp_path, app)
    live.chmod(0o444)
    before = snapshot(tmp_path)
    done = cli(tmp_path, "profile", "use", APPS[app][0], "--dry-run")
    assert done.returncode == 2, done.stderr  # as the switch itself would exit
    assert re.search(rf"^\+\+\+ .*{live.name}", done.stdout, re.M), done.stdout  # the diff
    assert "taotoken" in done.stdout
    line = one_error(done.stderr)
    assert f"{live}: is read-only (mode 0444); without --dry-run the command refuses" in line
    assert f"chmod u+w {live}" in line
    assert snapshot(tmp_path) == before
    real = cli(tmp_path, "profile", "use", APPS[app][0])
    assert real.returncode == 2 and "is read-only (mode 0444)" in one_error(real.stderr)
    assert snapshot(tmp_path) == before


def test_off_dry_run_onto_a_read_only_file_shows_what_comes_back(tmp_path: Path) -> None:
    live = world(tmp_path, "claude")
    assert cli(tmp_path, "profile", "use", "taotoken-claude").returncode == 0
    live.chmod(0o444)
    before = snapshot(tmp_path)
    done = cli(tmp_path, "profile", "off", "claude", "--dry-run")
    assert done.returncode == 2 and "theme" in done.stdout, done.stdout + done.stderr
    assert "without --dry-run the command refuses" in one_error(done.stderr)
    assert snapshot(tmp_path) == before

"""`key status` listed only the keys profiles name: a stored key no profile uses any more (the
profile removed, renamed to another key) could not be found, so not deleted (a new user). It is
listed too, masked, marked as used by no profile with the command that deletes it; the values a
switch holds back from your settings file (judgeaudit deletes those itself) are not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.new_user_helpers import add, cli, home, unique

pytestmark = pytest.mark.usefixtures("secret_service")
__all__ = ["home"]  # the fixture, shared


def test_a_stored_key_no_profile_uses_is_listed_masked(home: Path) -> None:
    used, orphan = unique("used"), unique("orphan")
    secret = "sk-orphan-" + "9" * 20 + "WXYZ"
    add(home, "p", "sdk", "https://gw.example/v1", "--key", used)
    assert cli(home, "key", "set", used, stdin="sk-used-" + "1" * 20 + "\n").returncode == 0
    assert cli(home, "key", "set", orphan, stdin=secret + "\n").returncode == 0
    # a leftover token a switch holds back in the keyring (a `saved-…` entry)
    token = "tok-mine-" + "3" * 20
    (home / "claude" / "settings.json").write_text(
        json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": token}})
    )
    add(home, "c", "claude", "https://gw.example/api", "--key", used)
    assert cli(home, "profile", "use", "c").returncode == 0
    assert json.loads((home / "cfg" / "state.json").read_text())["saved"]  # one is held back
    done = cli(home, "key", "status")
    assert done.returncode == 0, done.stderr
    # where the keys are, in the words `key set` uses (it printed the backend's module path)
    assert done.stdout.splitlines()[0] == "keyring: the OS keyring (Secret Service)"
    lines = {line.split()[0]: line for line in done.stdout.splitlines()[1:]}
    assert lines[orphan].split()[1:3] == ["stored", "…WXYZ"]
    assert lines[orphan].endswith(f"used by no profile (`judgeaudit key delete {orphan}`)")
    assert lines[used].endswith("used by: c, p")
    assert not [name for name in lines if name.startswith("saved-")], done.stdout
    assert secret not in done.stdout + done.stderr and token not in done.stdout + done.stderr
    assert cli(home, "key", "delete", orphan).returncode == 0
    assert orphan not in cli(home, "key", "status").stdout


def test_doctor_names_the_keyring_as_key_status_does(home: Path) -> None:
    """A new user: `profile doctor` ended with `keyring: keyring.backends.SecretService.Keyring`
    where `key status` said "Secret Service": one owner of the backend's name, one line."""
    status = cli(home, "key", "status")
    doctor = cli(home, "profile", "doctor")
    assert status.returncode == 0 and doctor.returncode == 0, status.stderr + doctor.stderr
    said = "keyring: the OS keyring (Secret Service)"
    assert status.stdout.splitlines()[0] == said
    assert doctor.stdout.splitlines()[-1] == said
    assert "keyring.backends" not in doctor.stdout

"""What a twenty-seventh-session review of profile switching found wrong, as a user meets it:
the real CLI in a fresh world, with the real Secret Service keyring where a key is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.new_user_helpers import add, cli, home, unique

__all__ = ["home"]  # the fixture, shared

LONG = "sk-ant-" + "long" * 6 + "WXYZ"


@pytest.mark.usefixtures("secret_service")
def test_an_inline_profile_without_its_key_still_shows_an_edit_since_use(home: Path) -> None:
    """`profile use` of an inline profile, `key delete --force`, then an edit of its base URL:
    doctor and list said nothing of the edit (the check needed the key), and doctor said the
    app's requests fail, while settings.json holds the key and Claude Code goes on working."""
    name = unique("s27-inline")
    add(home, "inl", "claude", "http://127.0.0.1:9/v1", "--model", "m", "--key", name,
        "--option", "key_mode=inline")  # fmt: skip
    assert cli(home, "key", "set", name, stdin=LONG).returncode == 0
    assert cli(home, "profile", "use", "inl").returncode == 0
    assert cli(home, "key", "delete", name, "--force").returncode == 0
    clean = cli(home, "profile", "doctor", "claude")  # the key gone, nothing else changed
    assert (
        cli(home, "profile", "edit", "inl", "--base-url", "http://127.0.0.1:8/v1").returncode == 0
    )
    doctor = cli(home, "profile", "doctor", "claude")
    listed = cli(home, "profile", "list")
    assert doctor.returncode == 0 == listed.returncode, doctor.stderr + listed.stderr
    assert "edited since `profile use`" not in clean.stdout and name in clean.stdout, clean.stdout
    assert "no longer holds what inl writes (edited since `profile use`)" in doctor.stdout
    assert "(changed since use: run profile use)" in listed.stdout, listed.stdout
    said = f"warning: key {name} (profile inl's) is missing from the keyring: "
    assert said in doctor.stdout and "Claude Code goes on working" in doctor.stdout
    assert "the app's requests fail" not in doctor.stdout
    assert LONG not in doctor.stdout + doctor.stderr + listed.stdout + listed.stderr

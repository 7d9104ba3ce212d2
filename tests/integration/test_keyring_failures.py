"""A keyring that fails mid-call (Secret Service's daemon gone, a D-Bus socket reset) is one
clear line and a non-zero exit, never "unexpected error; this is a bug", and nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import cli, make_world, world_env

ROOT = Path(__file__).resolve().parents[2]
BACKENDS = ["tests.memkeyring.DBusGoneKeyring", "tests.memkeyring.SocketResetKeyring"]


def broken_world(tmp_path: Path, backend: str) -> dict[str, str]:
    return {
        **world_env(make_world(tmp_path)),
        "PYTHON_KEYRING_BACKEND": backend,
        "PYTHONPATH": str(ROOT),
    }


def one_clear_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "this is a bug" not in lines[0] and "Traceback" not in stderr
    return lines[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_key_set_and_delete_say_the_keyring_refused(tmp_path: Path, backend: str) -> None:
    env = broken_world(tmp_path, backend)
    stored = cli("key", "set", "gw", stdin="sk-" + "a" * 24 + "\n", env=env, timeout=120)
    assert stored.returncode != 0
    line = one_clear_line(stored.stderr)
    assert "the keyring refused to store 'gw': " in line and "KeyringError" not in line
    deleted = cli("key", "delete", "gw", env=env, timeout=120)
    assert deleted.returncode != 0
    assert "the keyring refused to delete 'gw'" in one_clear_line(deleted.stderr)


@pytest.mark.parametrize("backend", BACKENDS)
def test_profile_use_that_must_keep_a_token_changes_nothing(tmp_path: Path, backend: str) -> None:
    env = broken_world(tmp_path, backend)
    settings = tmp_path / "claude" / "settings.json"
    mine = json.dumps({"theme": "dark", "env": {"ANTHROPIC_AUTH_TOKEN": "x" * 30}}, indent=2)
    settings.write_text(mine + "\n")
    done = cli("profile", "use", "local-sim-claude", env=env, timeout=120)
    assert done.returncode != 0
    assert "keyring" in one_clear_line(done.stderr)
    assert settings.read_text() == mine + "\n"
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_key_delete_without_a_keyring_says_how_to_get_one(tmp_path: Path) -> None:
    """No keyring at all: `key delete` prints the line every other key command prints (install
    one, or use key_env), exit 2; not "the keyring refused ...; run it again", which cannot help."""
    env = broken_world(tmp_path, "keyring.backends.fail.Keyring")
    deleted = cli("key", "delete", "gw", env=env, timeout=120)
    assert deleted.returncode == 2, deleted.stderr
    line = one_clear_line(deleted.stderr)
    assert "no usable OS keyring" in line and "gnome-keyring" in line, line
    assert "run it again" not in line
    status = cli("key", "status", "gw", env=env, timeout=120)
    assert status.stdout.split("keyring: ", 1)[1].strip() in line  # the same line, one owner

"""A settings.json with a key twice in one object (a new user's trial, twentieth session): two
``"env"`` objects, the first holding an old token. The switch read the last one, so its diff did
not know the first one's token: `profile use` printed it unmasked, and both backups held it.
JSON with a duplicate key is read differently by different programs, so the switch refuses the
file in one line naming file:line, writes nothing and prints no value of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.new_user_helpers import add, cli, home, one_line

__all__ = ["home"]  # the fixture, shared

OLD = "sk-dup-OLDTOKEN-" + "4" * 20
SETTINGS = (
    "{\n"
    f'  "env": {{"ANTHROPIC_AUTH_TOKEN": "{OLD}"}},\n'
    '  "theme": "dark",\n'
    '  "env": {"DISABLE_TELEMETRY": "1"}\n'
    "}\n"
)


@pytest.mark.parametrize("command", [("profile", "use", "a"), ("profile", "diff", "a")])
def test_a_settings_file_with_a_duplicate_key_is_refused_without_showing_it(
    home: Path, command: tuple[str, ...]
) -> None:
    add(home, "a", "claude", "http://127.0.0.1:18771", "--key-env", "A_KEY")
    settings = home / "claude" / "settings.json"
    settings.write_text(SETTINGS)
    done = cli(home, *command, env={"A_KEY": "k-a-" + "1" * 16})
    line = one_line(done)
    assert done.returncode == 2, done.stdout
    assert f"{settings}:4:3: " in line and 'the key "env" appears twice' in line, line
    assert "first on line 2" in line and "keep one" in line and "nothing was changed" in line
    assert OLD not in done.stdout + done.stderr
    assert settings.read_text() == SETTINGS
    assert not list((home / "cfg").rglob("*.bak"))  # no backup holds it

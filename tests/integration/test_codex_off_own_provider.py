"""`profile off codex` gives back a config.toml whose own lines name a provider (a new user's
trial): `model_provider = "openai"` (a common line) made every `off` fail on the switched-on
check ("read-back lacks the provider table"), leaving the switch on; a table or a list there
crashed it (exit 70). Off now checks only that nothing of judgeaudit's is left."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.new_user_helpers import add, cli, home

__all__ = ["home"]  # the fixture, shared


@pytest.mark.parametrize("own", ['"openai"', "5", '"nonexistent"', "{a = 1}", '["x"]'])
def test_off_gives_back_a_config_whose_own_line_names_a_provider(home: Path, own: str) -> None:
    config = home / "codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    original = f'model = "gpt-5"\nmodel_provider = {own}\n'.encode()
    config.write_bytes(original)
    add(home, "a-codex", "codex", "http://127.0.0.1:9/v1", "--key-env", "A_KEY")
    switched = cli(home, "profile", "use", "a-codex")
    assert switched.returncode == 0, switched.stderr
    assert 'model_provider = "' in config.read_text() and config.read_bytes() != original
    off = cli(home, "profile", "off", "codex")
    assert off.returncode == 0, off.stderr
    assert config.read_bytes() == original

"""A ``key_mode = "env"`` Claude profile takes its key from the terminal's environment, yet
`profile use` warned that the terminal's ``ANTHROPIC_AUTH_TOKEN`` goes "instead of profile pe's
key (from $GW_KEY)" and told the user to unset it: the one key Claude Code has. For that mode
the terminal's token is said as the profile's key (with its host and last four), and a file's
token as displacing it (one owner, ``shadowing.token_said``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.new_user_helpers import KEYRING_OK, add, cli, home

__all__ = ["home"]  # the fixture, shared

TOKEN = "sk-shell-token-" + "7" * 16 + "WXYZ"


def _warnings(home: Path, env: dict[str, str]) -> list[str]:
    add(home, "pe", "claude", "https://gw.example.com/api", "--key-env", "GW_KEY",
        "--option", "key_mode=env")  # fmt: skip
    lines = []
    for args in (("--dry-run",), ()):
        done = cli(home, "profile", "use", "pe", *args, env={**KEYRING_OK, **env})
        assert done.returncode == 0, done.stderr
        assert TOKEN not in done.stdout + done.stderr
        lines.append([x for x in done.stderr.splitlines() if "ANTHROPIC_" in x])
    assert lines[0] == lines[1]  # the preview says what the switch says
    return lines[0]


@pytest.mark.parametrize(
    ("variable", "header"),
    [("ANTHROPIC_AUTH_TOKEN", "the bearer token"), ("ANTHROPIC_API_KEY", "x-api-key")],
)
def test_the_terminal_s_token_is_said_as_the_env_mode_profile_s_key(
    home: Path, variable: str, header: str
) -> None:
    (line,) = _warnings(home, {variable: TOKEN})
    assert line == (
        f"warning: in this terminal's environment, {variable} is set (…WXYZ): Claude Code sends "
        f"it to gw.example.com as {header}, as profile pe's key (key_mode env takes the key from "
        "this environment; if it is another provider's, export pe's key there instead)"
    )
    assert "instead of profile" not in line and "unset it" not in line


def test_a_project_file_s_token_displaces_the_terminal_s(home: Path) -> None:
    project = home / "work" / ".claude"
    project.mkdir(parents=True)
    (project / "settings.json").write_text(json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": TOKEN}}))
    (line,) = _warnings(home, {})
    assert line.endswith(
        "as the bearer token instead of profile pe's key (key_mode env: the token in this "
        "terminal's environment) (remove it from that file)"
    ), line
    assert "$GW_KEY" not in line  # Claude Code never reads the profile's key_env in this mode

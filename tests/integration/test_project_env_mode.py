"""A ``key_mode = "env"`` profile's project binding leaves the token variables alone (its key is
the shell's), so a token in the project's files or the user's settings.json would outrank the
shell's and go to the bound gateway (seen with the real Claude Code:
``tests/contract/test_project_binding.py``). The binding is refused in one line naming the file
and the variable, never the value, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import cli, cli_ok, tool_env

pytestmark = pytest.mark.usefixtures("secret_service")

TOKEN = "fake-settings-token-4"


def _env_profile(tmp_path: Path) -> tuple[dict[str, str], Path, Path]:
    """(env, project, the user settings.json) with a key_mode env profile ``pe`` added."""
    env = tool_env(tmp_path, leave_out=("ANTHROPIC_", "CLAUDE_"))
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    cli_ok(
        *("profile", "add", "pe", "--app", "claude", "--base-url", "http://127.0.0.1:9/v1"),
        *("--key-env", "ANTHROPIC_AUTH_TOKEN", "--option", "key_mode=env"),
        env=env,
        whole_env=True,
    )
    return env, project, Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json"


@pytest.mark.parametrize(
    ("where", "variable"),
    [
        ("user", "ANTHROPIC_AUTH_TOKEN"),
        ("settings.json", "ANTHROPIC_API_KEY"),
        ("settings.local.json", "ANTHROPIC_AUTH_TOKEN"),
    ],
)
def test_a_token_below_the_binding_refuses_it(tmp_path: Path, where: str, variable: str) -> None:
    env, project, user = _env_profile(tmp_path)
    path = user if where == "user" else project / ".claude" / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"env": {variable: TOKEN}, "permissions": {}}) + "\n")
    watched = (project, Path(env["JUDGEAUDIT_CONFIG_DIR"]), user.parent)
    before = _files(watched)
    done = cli("profile", "use", "pe", "--project", str(project), env=env, whole_env=True)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"{path}: env.{variable} is set" in lines[0] and "nothing was changed" in lines[0]
    assert TOKEN not in done.stdout + done.stderr
    assert _files(watched) == before


def _files(folders: tuple[Path, ...]) -> dict[Path, bytes]:
    return {p: p.read_bytes() for f in folders for p in sorted(f.rglob("*")) if p.is_file()}


def test_an_api_key_helper_below_the_binding_refuses_it(tmp_path: Path) -> None:
    """A review: a user-level apiKeyHelper (a global `profile use` in helper mode) stays in
    force under an env-mode binding, and Claude Code sends its key beside an ANTHROPIC_API_KEY
    from the shell, or alone: refused as a token is."""
    env, project, user = _env_profile(tmp_path)
    user.write_text(json.dumps({"apiKeyHelper": "printf other-providers-key"}) + "\n")
    done = cli("profile", "use", "pe", "--project", str(project), env=env, whole_env=True)
    assert done.returncode != 0 and f"{user}: apiKeyHelper is set" in done.stderr, done.stderr
    assert not (project / ".claude" / "settings.local.json").exists()


def test_without_a_settings_token_the_binding_is_made(tmp_path: Path) -> None:
    env, project, user = _env_profile(tmp_path)
    user.write_text(json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": ""}}) + "\n")  # empty: unset
    cli_ok("profile", "use", "pe", "--project", str(project), env=env, whole_env=True)
    written = json.loads((project / ".claude" / "settings.local.json").read_text())["env"]
    assert written["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"

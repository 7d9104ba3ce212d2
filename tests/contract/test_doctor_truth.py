"""Issue 19 item 7: ``profile doctor`` says what the real clients do, case by case.

Each case runs the newest Claude Code / Codex from npm against the embedded server (its request
log fingerprints the bearer token and the x-api-key header separately) and checks that doctor,
run in the same directory with the same environment, names the same model, key and layer.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli_helpers import cli_ok, tool, tool_env
from tests.contract.test_real_tools import npm_bin
from tests.helpers import sim_server

HELPER_KEY = "helper-key-1"
SHELL_KEY = "shell-key-2"


def fp(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass
class World:
    tmp: Path
    url: str
    log: Path
    env: dict[str, str]

    def last(self) -> dict[str, object]:
        line: dict[str, object] = json.loads(self.log.read_text().splitlines()[-1])
        return line

    def claude(self, cwd: Path, *args: str, **extra: str) -> dict[str, object]:
        env = {**self.env, "ANTHROPIC_BASE_URL": self.url.removesuffix("/v1"), **extra}
        done = tool([npm_bin("claude"), "-p", "hi", *args], env=env, cwd=cwd, timeout=180)
        assert "simulated reply" in done.stdout, done.stdout[-1500:] + done.stderr[-1500:]
        return self.last()

    def codex(self, cwd: Path) -> dict[str, object]:
        done = tool(
            [npm_bin("codex"), "exec", "--skip-git-repo-check", "hi"],
            env=self.env,
            cwd=cwd,
            timeout=180,
        )
        assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
        return self.last()

    def doctor(self, cwd: Path, app: str, **extra: str) -> str:
        env = {**self.env, "ANTHROPIC_BASE_URL": self.url.removesuffix("/v1"), **extra}
        return cli_ok("profile", "doctor", app, cwd=cwd, env=env, whole_env=True).stdout


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    env = tool_env(tmp_path, leave_out=("ANTHROPIC_", "CLAUDE_"), SIMK="fake-simk")
    (tmp_path / "repo" / "a").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    user = {"apiKeyHelper": f"echo {HELPER_KEY}", "env": {"ANTHROPIC_MODEL": "m-user"}}
    (tmp_path / "claude" / "settings.json").write_text(json.dumps(user))
    log = tmp_path / "requests.log"
    with sim_server("--request-log", str(log)) as url:
        yield World(tmp_path, url, log, env)


def _project(directory: Path, tool: str, text: str) -> None:
    (directory / f".{tool}").mkdir(parents=True, exist_ok=True)
    name = "settings.json" if tool == "claude" else "config.toml"
    (directory / f".{tool}" / name).write_text(text)


def test_claude_project_layer_is_the_current_directory_only(world: World) -> None:
    repo = world.tmp / "repo"
    _project(repo, "claude", json.dumps({"env": {"ANTHROPIC_MODEL": "m-root"}}))
    assert world.claude(repo / "a")["model"] == "m-user"  # the git root's file is not read
    said = world.doctor(repo / "a", "claude")
    assert "m-user" in said and "m-root" not in said and str(repo / ".claude") not in said
    assert world.claude(repo)["model"] == "m-root"
    said = world.doctor(repo, "claude")
    assert f"m-root   from project {repo / '.claude' / 'settings.json'}" in said
    # CLAUDE_CONFIG_DIR elsewhere: ~/.claude/settings.json is a project file in ~.
    _project(world.tmp / "home", "claude", json.dumps({"env": {"ANTHROPIC_MODEL": "m-home"}}))
    assert world.claude(world.tmp / "home")["model"] == "m-home"
    said = world.doctor(world.tmp / "home", "claude")
    assert f"m-home   from project {world.tmp / 'home' / '.claude' / 'settings.json'}" in said


def test_claude_empty_api_key_does_not_outrank_the_helper(world: World) -> None:
    sent = world.claude(world.tmp / "home", ANTHROPIC_API_KEY="")
    assert sent["key_sha256"] == sent["x_api_key_sha256"] == fp(HELPER_KEY)
    said = world.doctor(world.tmp / "home", "claude", ANTHROPIC_API_KEY="")
    assert "key       apiKeyHelper `echo helper-key-1`" in said
    assert "ANTHROPIC_API_KEY is set but empty" in said and "x-api-key" not in said


def test_claude_shell_api_key_goes_to_the_gateway_beside_the_helper(world: World) -> None:
    sent = world.claude(world.tmp / "home", ANTHROPIC_API_KEY=SHELL_KEY)
    assert sent["key_sha256"] == fp(HELPER_KEY)  # the bearer token: the helper's
    assert sent["x_api_key_sha256"] == fp(SHELL_KEY)  # and the shell's key beside it
    said = world.doctor(world.tmp / "home", "claude", ANTHROPIC_API_KEY=SHELL_KEY)
    assert "key       apiKeyHelper" in said
    assert "sends it to 127.0.0.1:" in said
    assert "as x-api-key beside the key of your user settings (its apiKeyHelper)" in said
    assert "if it is a real Anthropic key, that gateway receives it" in said
    assert SHELL_KEY not in said


def test_codex_untrusted_project_config_is_ignored(world: World) -> None:
    user = world.tmp / "codex" / "config.toml"
    user.write_text(
        'model = "m-user"\nmodel_provider = "simp"\n[model_providers.simp]\nname = "simp"\n'
        f'base_url = "{world.url}"\nwire_api = "responses"\nenv_key = "SIMK"\n'
    )
    repo = world.tmp / "repo"
    _project(repo, "codex", 'model = "m-proj"\n')
    assert world.codex(repo / "a")["model"] == "m-user"
    said = world.doctor(repo / "a", "codex")
    assert "model     m-user   from user" in said and "ignored: the project is not trusted" in said
    assert "override config.toml" not in said
    with user.open("a") as handle:
        handle.write(f'\n[projects."{repo}"]\ntrust_level = "trusted"\n')
    assert world.codex(repo / "a")["model"] == "m-proj"
    said = world.doctor(repo / "a", "codex")
    assert f"model     m-proj   from project {repo / '.codex' / 'config.toml'}" in said


def test_claude_tiers_pointing_elsewhere_are_shown(world: World) -> None:
    settings = world.tmp / "claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["env"]["ANTHROPIC_DEFAULT_HAIKU_MODEL"] = "old-gateway-haiku"
    settings.write_text(json.dumps(data))
    assert world.claude(world.tmp / "home", "--model", "haiku")["model"] == "old-gateway-haiku"
    said = world.doctor(world.tmp / "home", "claude")
    assert "tier: ANTHROPIC_DEFAULT_HAIKU_MODEL = old-gateway-haiku from user" in said
    assert "`claude --model haiku`" in said

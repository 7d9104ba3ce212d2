"""The new-user defects that involve Codex and Claude Code themselves, proved with the real tools
(npm) against the embedded provider, as the other contract tests do: `exec` next to a global
switch of the same gateway (1), a Bedrock flag in the user's settings (2), and what `profile
doctor` says about a legacy Codex `profile = ...` line (13)."""

from __future__ import annotations

import json
import secrets as pysecrets
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.bridge_helpers import served
from tests.cli_helpers import JUDGEAUDIT, cli, stored_keys, tool, tool_env
from tests.contract.test_real_tools import npm_bin

pytestmark = pytest.mark.usefixtures("secret_service")
MODEL = "sim-chat:latency_ms=1"
REPLY = f"simulated reply from {MODEL}"


@dataclass
class World:
    env: dict[str, str]
    tmp: Path
    full: str  # the embedded provider with every API, its base URL (ends in /v1)
    chat_only: str  # one that only serves chat completions
    key_a: str
    key_b: str

    def judgeaudit(self, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        done = cli(*args, env=self.env, timeout=120, cwd=self.tmp / "work", whole_env=True)
        assert done.returncode == code, done.stdout + done.stderr
        return done

    def tool(self, *argv: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        """A real tool (or judgeaudit exec around one) run to its end."""
        return tool(list(argv), env=self.env, cwd=self.tmp / "work", timeout=timeout)

    def exec_(self, profile: str, *argv: str) -> subprocess.CompletedProcess[str]:
        return self.tool(*JUDGEAUDIT, "exec", profile, "--", *argv)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    secret_a = "sk-nu-a-" + pysecrets.token_hex(8)
    secret_b = "sk-nu-b-" + pysecrets.token_hex(8)
    env = tool_env(tmp_path, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    sim = ("sim", "serve", "--port", "0", "--require-key-env", "SIMKEY")
    key_a, key_b = "nu-a-" + pysecrets.token_hex(4), "nu-b-" + pysecrets.token_hex(4)
    with (
        served(*sim, env={"SIMKEY": secret_a}) as (full, _),
        served(*sim, "--apis", "chat", env={"SIMKEY": secret_b}) as (chat_only, _),
        stored_keys(env, {key_a: secret_a, key_b: secret_b}),
    ):
        yield World(env, tmp_path, full, chat_only, key_a, key_b)


def add(world: World, name: str, app: str, base_url: str, key: str, *extra: str) -> None:
    world.judgeaudit(
        "profile", "add", name, "--app", app, "--base-url", base_url, "--model", MODEL,
        "--key", key, *extra,
    )  # fmt: skip


def codex_exec(*extra: str) -> tuple[str, ...]:
    return (npm_bin("codex"), "exec", *extra, "--skip-git-repo-check", "hello")


# --- 1: exec next to a global switch of the same gateway --------------------------------------


def test_1_exec_of_a_bridged_codex_profile_while_it_is_switched_on_globally(
    world: World,
) -> None:
    add(world, "b-codex", "codex", world.chat_only, world.key_b, "--option", "bridge=chat")
    world.judgeaudit("profile", "use", "b-codex")  # config.toml: the same provider id, auth command
    config = (world.tmp / "codex" / "config.toml").read_bytes()
    done = world.exec_("b-codex", *codex_exec())
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    assert REPLY in done.stdout
    assert (world.tmp / "codex" / "config.toml").read_bytes() == config


def test_1_exec_with_a_command_key_while_an_env_key_profile_is_switched_on(world: World) -> None:
    add(world, "a-env", "codex", world.full, world.key_a, "--option", "key_mode=env_key")
    add(world, "a-codex", "codex", world.full, world.key_a)  # same gateway: same provider id
    world.judgeaudit("profile", "use", "a-env")
    done = world.exec_("a-codex", *codex_exec())
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    assert REPLY in done.stdout


# --- 2: a Bedrock flag in the user's settings.json --------------------------------------------


def test_2_bedrock_flag_in_the_user_file_is_overridden_by_exec_and_removed_by_use(
    world: World,
) -> None:
    settings = world.tmp / "claude" / "settings.json"
    settings.write_text(
        json.dumps({"env": {"CLAUDE_CODE_USE_BEDROCK": "1"}, "theme": "dark"}, indent=2) + "\n"
    )
    original = settings.read_bytes()
    add(world, "a-claude", "claude", world.full.removesuffix("/v1"), world.key_a)
    done = world.exec_("a-claude", npm_bin("claude"), "-p", "hello")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    assert REPLY in done.stdout and settings.read_bytes() == original
    preview = world.judgeaudit("profile", "use", "a-claude", "--dry-run")
    assert 'removes env.CLAUDE_CODE_USE_BEDROCK = "1"' in preview.stdout
    world.judgeaudit("profile", "use", "a-claude")
    assert "CLAUDE_CODE_USE_BEDROCK" not in settings.read_text()
    done = world.tool(npm_bin("claude"), "-p", "hello")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    assert REPLY in done.stdout
    world.judgeaudit("profile", "off", "claude")
    assert settings.read_bytes() == original  # the user's flag back


# --- 13: a legacy `profile = ...` line: doctor says Codex will not start, as Codex does --------


def test_13_doctor_and_codex_agree_about_a_legacy_profile_line(world: World) -> None:
    add(world, "a-codex", "codex", world.full, world.key_a)
    config = world.tmp / "codex" / "config.toml"
    config.write_text('profile = "fast"\n\n[profiles.fast]\nmodel = "x"\n')
    used = world.judgeaudit("profile", "use", "a-codex")
    assert "Codex refuses to start" in used.stderr
    doctor = world.judgeaudit("profile", "doctor", "codex").stdout
    assert "Codex refuses to start" in doctor and "Codex will not start" in doctor
    assert "  provider " not in doctor  # no claim about what it would use
    refused = world.tool(*codex_exec())
    assert refused.returncode != 0 and "legacy `profile" in refused.stdout + refused.stderr
    config.write_text(config.read_text().replace('profile = "fast"\n', ""))
    doctor = world.judgeaudit("profile", "doctor", "codex").stdout
    assert "will not start" not in doctor and "  provider " in doctor
    done = world.tool(*codex_exec())
    assert done.returncode == 0 and REPLY in done.stdout

"""`codex -p NAME` after a global switch to another profile of the same gateway that takes its
key another way, with the real Codex (npm) against the embedded server's request log (a new
user's trial, eighteenth session). Both profiles share the provider id `local-PORT`; one reads
a keyring entry (an `auth` command), the other `$GWA_KEY` (`env_key`). `codex -p` merges
`NAME.config.toml` over `config.toml`, and Codex refused to start: "provider auth cannot be
combined with env_key". Now every order of switches leaves files Codex merges, and each run
sends the gateway's key."""

from __future__ import annotations

import secrets as pysecrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.bridge_helpers import key_fingerprint, request_log, served
from tests.cli_helpers import cli, stored_keys, tool, tool_env
from tests.contract.test_real_tools import npm_bin

pytestmark = pytest.mark.usefixtures("secret_service")
MODEL = "sim-chat:latency_ms=2"


@dataclass
class World:
    env: dict[str, str]
    work: Path
    log: Path
    secret: str

    def judgeaudit(self, *args: str) -> None:
        done = cli(*args, env=self.env, cwd=self.work, timeout=120, whole_env=True)
        assert done.returncode == 0, done.stdout + done.stderr

    def codex(self, *args: str) -> None:
        done = tool(
            [npm_bin("codex"), *args, "exec", "--skip-git-repo-check", "hello"],
            env=self.env, cwd=self.work, timeout=180,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
        assert f"simulated reply from {MODEL}" in done.stdout


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    secret = "sk-pf-" + pysecrets.token_hex(8)
    key = "pf-" + pysecrets.token_hex(4)
    env = tool_env(tmp_path, GWA_KEY=secret)  # the env_key profile's variable
    log = tmp_path / "gw.jsonl"
    with (
        served("sim", "serve", "--port", "0", "--require-key-env", "SIMKEY", "--request-log",
               str(log), env={"SIMKEY": secret}) as (url, _),
        stored_keys(env, {key: secret}),
    ):  # fmt: skip
        world = World(env, tmp_path / "work", log, secret)
        common = ("--app", "codex", "--base-url", url, "--model", MODEL)
        world.judgeaudit("profile", "add", "a-codex", *common, "--key", key)
        world.judgeaudit("profile", "add", "a-codex-envkey", *common, "--key-env", "GWA_KEY")
        yield world


@pytest.mark.parametrize(
    "order", [("a-codex", "a-codex-envkey"), ("a-codex-envkey", "a-codex")], ids="->".join
)
def test_codex_p_works_after_a_switch_to_the_other_key_mode(
    world: World, order: tuple[str, str]
) -> None:
    for name in order:
        world.judgeaudit("profile", "use", name)
    world.codex("-p", order[0])
    world.codex("-p", order[1])
    world.codex()  # the global switch
    lines = [line for line in request_log(world.log) if line["path"] != "/v1/models"]
    assert len(lines) >= 3
    assert all(line["keys_sha256"] == [key_fingerprint(world.secret)] for line in lines), lines

"""`judgeaudit exec B -- <Codex exec cannot recognise>` while the user's own `config.toml`
has a hand-written provider reading `OPENAI_API_KEY` for gateway A, with the real Codex (npm)
against two loopback gateways that log a fingerprint of every key they receive (a new user's
trial, eighteenth session): exec exported B's key as `OPENAI_API_KEY` and Codex sent it to A,
6 requests a command. Now `env codex` and a wrapper script are refused while A's gateway sees
nothing, a Codex given an sdk profile is refused, and `--as codex` sends B's key to B only."""

from __future__ import annotations

import secrets as pysecrets
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.bridge_helpers import key_fingerprint, request_log, served
from tests.cli_helpers import JUDGEAUDIT, cli, stored_keys, tool, tool_env
from tests.contract.test_real_tools import npm_bin

pytestmark = pytest.mark.usefixtures("secret_service")
MODEL_B = "sim-chat:latency_ms=3"


@dataclass
class World:
    env: dict[str, str]
    work: Path
    log_a: Path
    log_b: Path
    secret_b: str

    def exec_(self, *args: str) -> subprocess.CompletedProcess[str]:
        return tool([*JUDGEAUDIT, "exec", *args], env=self.env, cwd=self.work, timeout=240)

    def a_saw_nothing(self) -> None:
        assert request_log(self.log_a) == []


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    secret_a = "sk-rd-a-" + pysecrets.token_hex(8)
    secret_b = "sk-rd-b-" + pysecrets.token_hex(8)
    env = tool_env(tmp_path)
    log_a, log_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    sim = ("sim", "serve", "--port", "0", "--require-key-env", "SIMKEY", "--request-log")
    key_b = "rd-b-" + pysecrets.token_hex(4)
    with (
        served(*sim, str(log_a), env={"SIMKEY": secret_a}) as (url_a, _),
        served(*sim, str(log_b), env={"SIMKEY": secret_b}) as (url_b, _),
        stored_keys(env, {key_b: secret_b}),
    ):
        (tmp_path / "codex" / "config.toml").write_text(
            'model_provider = "mygw"\nmodel = "sim-chat"\n\n[model_providers.mygw]\n'
            f'name = "my gateway"\nbase_url = "{url_a}"\nwire_api = "responses"\n'
            'env_key = "OPENAI_API_KEY"\n'
        )
        for name, app in (("b-codex", "codex"), ("b-sdk", "sdk")):
            added = cli(
                "profile", "add", name, "--app", app, "--base-url", url_b, "--model", MODEL_B,
                "--key", key_b, env=env, whole_env=True, cwd=tmp_path / "work",
            )  # fmt: skip
            assert added.returncode == 0, added.stderr
        yield World(env, tmp_path / "work", log_a, log_b, secret_b)


def _wrapper(work: Path) -> str:
    """A script exec cannot recognise: it never spells the client's name."""
    real = npm_bin("codex")
    script = work / "cw2"
    script.write_text(f'#!/bin/sh\nexec "{real[:-5]}co""dex" "$@"\n')
    script.chmod(0o755)
    return "./cw2"


CODEX_ARGS = ("exec", "--skip-git-repo-check", "hello")


@pytest.mark.parametrize("how", ["env", "wrapper"])
def test_an_unrecognised_codex_is_refused_while_config_toml_would_send_the_key_to_a(
    world: World, how: str
) -> None:
    argv = ["env", npm_bin("codex")] if how == "env" else [_wrapper(world.work)]
    done = world.exec_("b-codex", "--", *argv, *CODEX_ARGS)
    assert done.returncode == 2, done.stdout[-1500:] + done.stderr[-1500:]
    line = done.stderr.strip()
    assert "[model_providers.mygw] sends $OPENAI_API_KEY to http://127.0.0.1:" in line
    assert "--as codex" in line and world.secret_b not in done.stdout + done.stderr
    world.a_saw_nothing()
    assert request_log(world.log_b) == []  # nothing ran


def test_codex_given_an_sdk_profile_is_refused(world: World) -> None:
    done = world.exec_("b-sdk", "--", npm_bin("codex"), *CODEX_ARGS)
    assert done.returncode == 2 and "is a sdk profile" in done.stderr, done.stderr[-1500:]
    world.a_saw_nothing()


def test_as_codex_sends_bs_key_to_b_only(world: World) -> None:
    done = world.exec_("b-codex", "--as", "codex", "--", _wrapper(world.work), *CODEX_ARGS)
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    assert f"simulated reply from {MODEL_B}" in done.stdout
    world.a_saw_nothing()
    lines = [line for line in request_log(world.log_b) if line["path"] != "/v1/models"]
    assert lines and all(
        line["keys_sha256"] == [key_fingerprint(world.secret_b)] for line in lines
    ), lines

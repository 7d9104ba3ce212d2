"""`judgeaudit exec B -- ./wrapper` (a script running the real Codex, npm) after two profiles of
gateway A shared a provider id, one reading a keyring entry and one ``OPENAI_API_KEY``: the
switch wrote ``config.toml``'s table as an ``auth`` command printing ``$OPENAI_API_KEY``, which
exec's guard did not read (a review, nineteenth session), so exec exported B's key as
``OPENAI_API_KEY`` and Codex's auth command gave it to A. Two loopback gateways log a fingerprint
of every key they receive: now the wrapper is refused and A sees nothing; ``--as codex`` sends
B's key to B only."""

from __future__ import annotations

import secrets as pysecrets
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import tomlkit

from tests.bridge_helpers import key_fingerprint, request_log, served
from tests.cli_helpers import JUDGEAUDIT, cli, stored_keys, tool, tool_env
from tests.contract.test_exec_codex_redirect import CODEX_ARGS, MODEL_B
from tests.contract.test_real_tools import npm_bin

pytestmark = pytest.mark.usefixtures("secret_service")


@dataclass
class World:
    env: dict[str, str]
    work: Path
    log_a: Path
    log_b: Path
    secret_b: str

    def ja(self, *args: str) -> subprocess.CompletedProcess[str]:
        return tool([*JUDGEAUDIT, *args], env=self.env, cwd=self.work, timeout=240)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    secret_a, secret_b = ("sk-ac-" + x + pysecrets.token_hex(8) for x in "ab")
    env = tool_env(tmp_path)
    log_a, log_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    sim = ("sim", "serve", "--port", "0", "--require-key-env", "SIMKEY", "--request-log")
    entry_a, entry_b = ("ac-" + x + pysecrets.token_hex(4) for x in "ab")
    with (
        served(*sim, str(log_a), env={"SIMKEY": secret_a}) as (url_a, _),
        served(*sim, str(log_b), env={"SIMKEY": secret_b}) as (url_b, _),
        stored_keys(env, {entry_a: secret_a, entry_b: secret_b}),
    ):
        for name, url, key in (
            ("a2", url_a, ("--key", entry_a)),
            ("a1", url_a, ("--key-env", "OPENAI_API_KEY")),
            ("b", url_b, ("--key", entry_b)),
        ):
            added = cli(
                "profile", "add", name, "--app", "codex", "--base-url", url, "--model", MODEL_B,
                *key, "--option", "provider_id=gwa" if name != "b" else "provider_id=gwb",
                env=env, whole_env=True, cwd=tmp_path / "work",
            )  # fmt: skip
            assert added.returncode == 0, added.stderr
        world = World(env, tmp_path / "work", log_a, log_b, secret_b)
        for name in ("a2", "a1"):
            used = world.ja("profile", "use", name)
            assert used.returncode == 0, used.stderr[-1500:]
        yield world


def _wrapper(work: Path) -> str:
    """A script exec cannot recognise: it never spells the client's name."""
    real = npm_bin("codex")
    script = work / "cw3"
    script.write_text(f'#!/bin/sh\nexec "{real[:-5]}co""dex" "$@"\n')
    script.chmod(0o755)
    return "./cw3"


def test_a_wrapper_is_refused_while_codexs_auth_command_would_print_bs_key_to_a(
    world: World,
) -> None:
    config = (Path(world.env["CODEX_HOME"]) / "config.toml").read_text()
    assert "env_key" not in config and '"OPENAI_API_KEY"' in config  # the auth command form
    done = world.ja("exec", "b", "--", _wrapper(world.work), *CODEX_ARGS)
    assert done.returncode == 2, done.stdout[-1500:] + done.stderr[-1500:]
    line = done.stderr.strip()
    assert "config.toml [model_providers.gwa] sends $OPENAI_API_KEY to http://127.0.0.1:" in line
    assert world.secret_b not in done.stdout + done.stderr
    assert request_log(world.log_a) == [] and request_log(world.log_b) == []  # nothing ran


def test_as_codex_sends_bs_key_to_b_only(world: World) -> None:
    done = world.ja("exec", "b", "--as", "codex", "--", _wrapper(world.work), *CODEX_ARGS)
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    assert f"simulated reply from {MODEL_B}" in done.stdout
    assert request_log(world.log_a) == []
    lines = [line for line in request_log(world.log_b) if line["path"] != "/v1/models"]
    assert lines and all(
        line["keys_sha256"] == [key_fingerprint(world.secret_b)] for line in lines
    ), lines


def test_a_script_of_the_users_as_auth_command_is_refused_and_would_have_sent_bs_key_to_a(
    world: World,
) -> None:
    """The guard counted a command of the user's only when its command line named the variable
    (a review, twentieth session): ``auth = { command = "key.sh" }`` printing
    ``$OPENAI_API_KEY`` passed, exit 0. Now refused; ``--as plain`` (the user's say-so) shows
    what the guard prevents: the real Codex runs the script and A gets B's key."""
    script = world.work / "key.sh"
    script.write_text("#!/bin/sh\nprintf '%s' \"$OPENAI_API_KEY\"\n")
    script.chmod(0o755)
    for config in Path(world.env["CODEX_HOME"]).glob("*config.toml"):  # a1's, a2's too
        data = tomlkit.parse(config.read_text())
        if "gwa" in data.get("model_providers", {}):
            data["model_providers"]["gwa"]["auth"] = {"command": str(script)}
            config.write_text(tomlkit.dumps(data))
    refused = world.ja("exec", "b", "--", _wrapper(world.work), *CODEX_ARGS)
    assert refused.returncode == 2, refused.stdout[-1500:] + refused.stderr[-1500:]
    assert (
        "config.toml [model_providers.gwa] runs an auth command that is not judgeaudit's and "
        "may print $OPENAI_API_KEY, sending it to http://127.0.0.1:"
    ) in refused.stderr
    assert request_log(world.log_a) == [] and request_log(world.log_b) == []  # nothing ran
    world.ja("exec", "b", "--as", "plain", "--", _wrapper(world.work), *CODEX_ARGS)
    sent = {k for line in request_log(world.log_a) for k in line["keys_sha256"]}
    assert key_fingerprint(world.secret_b) in sent  # what the refusal kept from gateway A

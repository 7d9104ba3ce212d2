"""`judgeaudit exec B -- <Claude Code under another name>` while profile A is switched on
globally, with the real newest Claude Code (npm) against two loopback gateways: A's gateway never
sees B's key; B's gateway gets B's key and model. Claude Code is reached through a symlink, a
shell wrapper, npx, a version-suffixed copy and `node`; a command exec cannot recognise is
refused while the user file redirects, and runs with `--as claude` / `--as plain`."""

from __future__ import annotations

import json
import os
import secrets as pysecrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.bridge_helpers import key_fingerprint, request_log, served
from tests.cli_helpers import cli, stored_keys, tool_env
from tests.contract.test_real_tools import npm_bin

pytestmark = pytest.mark.usefixtures("secret_service")
MODEL_A, MODEL_B = "sim-chat:latency_ms=1", "sim-chat:latency_ms=7"


@dataclass
class Gateways:
    env: dict[str, str]
    tmp: Path
    work: Path
    log_a: Path
    log_b: Path
    secret_a: str
    secret_b: str

    def judgeaudit(self, *args: str) -> subprocess.CompletedProcess[str]:
        return cli(*args, env=self.env, cwd=self.work, timeout=240, whole_env=True, no_stdin=True)

    def a_never_saw_b(self) -> None:
        b = key_fingerprint(self.secret_b)
        for line in request_log(self.log_a):
            assert b not in line["keys_sha256"], line

    def b_got_its_own(self) -> None:
        lines = [line for line in request_log(self.log_b) if line["path"] != "/v1/models"]
        assert lines, "B's gateway saw no request"
        for line in lines:
            assert line["keys_sha256"] == [key_fingerprint(self.secret_b)], line
        assert MODEL_B in {line.get("model") for line in lines}


@pytest.fixture
def gateways(tmp_path: Path) -> Iterator[Gateways]:
    secret_a = "sk-ex-a-" + pysecrets.token_hex(8)
    secret_b = "sk-ex-b-" + pysecrets.token_hex(8)
    (tmp_path / "tmp").mkdir()
    env = tool_env(
        tmp_path, TMPDIR=str(tmp_path / "tmp"), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1"
    )
    log_a, log_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    sim = ("sim", "serve", "--port", "0", "--require-key-env", "SIMKEY", "--request-log")
    names = ("ex-a-" + pysecrets.token_hex(4), "ex-b-" + pysecrets.token_hex(4))
    with (
        served(*sim, str(log_a), env={"SIMKEY": secret_a}) as (url_a, _),
        served(*sim, str(log_b), env={"SIMKEY": secret_b}) as (url_b, _),
        stored_keys(env, dict(zip(names, (secret_a, secret_b), strict=True))),
    ):
        world = Gateways(env, tmp_path, tmp_path / "work", log_a, log_b, secret_a, secret_b)
        for profile, url, model, key in (
            ("a-claude", url_a, MODEL_A, names[0]),
            ("b-claude", url_b, MODEL_B, names[1]),
        ):
            added = world.judgeaudit(
                "profile", "add", profile, "--app", "claude", "--base-url",
                url.removesuffix("/v1"), "--model", model, "--key", key,
            )  # fmt: skip
            assert added.returncode == 0, added.stderr
        used = world.judgeaudit("profile", "use", "a-claude")  # A is on globally
        assert used.returncode == 0, used.stderr
        yield world


def _claude_real() -> Path:
    return Path(os.path.realpath(npm_bin("claude")))


def _symlink(work: Path) -> list[str]:
    link = work / "claude-latest"
    link.symlink_to(_claude_real())
    return ["./claude-latest"]


def _wrapper(work: Path) -> list[str]:
    script = work / "cc"
    script.write_text(f'#!/bin/sh\n# my Claude Code\nexec "{_claude_real()}" "$@"\n')
    script.chmod(0o755)
    return ["./cc"]


def _npx(work: Path) -> list[str]:
    (work / "node_modules").symlink_to(Path(npm_bin("claude")).parents[1])
    return ["npx", "--no-install", "@anthropic-ai/claude-code"]


def _versioned(work: Path) -> list[str]:
    copy = work / "claude-2.1.x"
    os.link(_claude_real(), copy)  # a copy outside the package, named by its version
    return [str(copy)]


@pytest.mark.parametrize("make", [_symlink, _wrapper, _npx, _versioned], ids=lambda f: f.__name__)
def test_exec_of_claude_under_another_name_sends_the_key_only_to_its_own_gateway(
    gateways: Gateways, make: object
) -> None:
    assert callable(make)
    argv = make(gateways.work)
    done = gateways.judgeaudit("exec", "b-claude", "--", *argv, "-p", "hello exec")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    assert f"simulated reply from {MODEL_B}" in done.stdout
    gateways.a_never_saw_b()
    gateways.b_got_its_own()
    assert not list((gateways.tmp / "tmp").glob("judgeaudit-claude-*"))  # the layer is gone


def test_an_unrecognised_command_is_refused_while_the_user_file_redirects(
    gateways: Gateways,
) -> None:
    node = shutil.which("node")
    assert node is not None
    wrapper = gateways.work / "cc.py"  # a Python wrapper: exec cannot tell what it runs
    wrapper.write_text(
        f"import os, sys\nos.execv({str(_claude_real())!r}, ['claude', *sys.argv[1:]])\n"
    )
    refused = gateways.judgeaudit(
        "exec", "b-claude", "--", sys.executable, str(wrapper), "-p", "hello exec"
    )
    assert refused.returncode != 0
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "settings.json sets env.ANTHROPIC_BASE_URL" in lines[0]
    assert "--as claude" in lines[0] and "--as plain" in lines[0]
    assert not request_log(gateways.log_a) and not request_log(gateways.log_b)  # nothing ran
    # `--as claude` on a command that puts its arguments after its own: a tiny shim does.
    shim = gateways.work / "cc-shim"
    shim.write_text(f'#!{sys.executable}\nimport os, sys\nos.execv({sys.executable!r}, '
                    f'[{sys.executable!r}, {str(wrapper)!r}, *sys.argv[1:]])\n')  # fmt: skip
    shim.chmod(0o755)
    done = gateways.judgeaudit("exec", "b-claude", "--as", "claude", "--", str(shim), "-p", "hi")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    gateways.a_never_saw_b()
    gateways.b_got_its_own()
    # `--as plain`: the user says no Claude Code is inside; the profile's environment is given.
    probe = "import os; print(os.environ['ANTHROPIC_BASE_URL'])"
    plain = gateways.judgeaudit(
        "exec", "b-claude", "--as", "plain", "--", sys.executable, "-c", probe
    )
    assert plain.returncode == 0 and plain.stdout.strip().startswith("http://127.0.0.1:")


def test_node_running_the_package_script_is_recognised(gateways: Gateways) -> None:
    """`node .../cli-wrapper.cjs` (the package's own launcher when postinstall did not run)."""
    script = _claude_real().parents[1] / "cli-wrapper.cjs"
    if not script.exists():
        script = _claude_real().parents[1] / "cli.js"  # the releases that shipped JavaScript
    done = gateways.judgeaudit("exec", "b-claude", "--", "node", str(script), "-p", "hello node")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    gateways.a_never_saw_b()
    gateways.b_got_its_own()


def test_settings_json_is_what_redirects(gateways: Gateways) -> None:
    """The refusal names the user's file only when it really redirects: after `off`, the
    profile's environment goes to a plain command."""
    settings = gateways.tmp / "claude" / "settings.json"
    assert "ANTHROPIC_BASE_URL" in json.loads(settings.read_text())["env"]
    off = gateways.judgeaudit("profile", "off", "claude")
    assert off.returncode == 0, off.stderr
    probe = "import os; print(os.environ['ANTHROPIC_MODEL'])"
    done = gateways.judgeaudit("exec", "b-claude", "--", sys.executable, "-c", probe)
    assert done.returncode == 0 and done.stdout.strip() == MODEL_B, done.stderr

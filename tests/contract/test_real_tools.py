"""Contract tests: after `profile use`, the real Codex CLI and Claude Code (from npm) send their
request to the embedded server with the keyring key as bearer token and the profile's model."""

from __future__ import annotations

import json
import os
import secrets as pysecrets
import subprocess
from pathlib import Path

import pytest

from tests.cli_helpers import JUDGEAUDIT, cli_ok, stored_keys, tool, tool_env
from tests.helpers import sim_server

pytestmark = pytest.mark.usefixtures("secret_service")
REPO = Path(__file__).resolve().parents[2]


def npm_bin(tool: str) -> str:
    base = Path(
        os.environ.get("JUDGEAUDIT_NPM_BIN", REPO / ".cache" / "npm" / "node_modules" / ".bin")
    )
    path = base / tool
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} missing: scripts/test.sh installs it")
        pytest.skip(f"{tool} not installed (run scripts/test.sh once)")
    return str(path)


@pytest.fixture
def world(tmp_path: Path):  # type: ignore[no-untyped-def]
    secret = "sk-contract-" + pysecrets.token_hex(10)
    key_name = "contract-" + pysecrets.token_hex(6)
    env = tool_env(tmp_path)
    with (
        sim_server("--require-key-env", "SIMKEY", env={"SIMKEY": secret}) as url,
        stored_keys(env, {key_name: secret}),
    ):
        yield url, key_name, env, tmp_path, secret


def judgeaudit(env: dict[str, str], *args: str) -> None:
    cli_ok(*args, env=env, whole_env=True)


def test_codex_exec_uses_profile_model_and_keyring_key(world) -> None:  # type: ignore[no-untyped-def]
    url, key_name, env, tmp, secret = world
    judgeaudit(
        env,
        "profile",
        "add",
        "ctr-codex",
        "--app",
        "codex",
        "--base-url",
        url,
        "--model",
        "sim-chat:latency_ms=1",
        "--key",
        key_name,
    )
    judgeaudit(env, "profile", "use", "ctr-codex")
    config = (tmp / "codex" / "config.toml").read_text()
    assert secret not in config and 'wire_api = "responses"' in config
    for extra in ([], ["-p", "ctr-codex"]):
        done = tool(
            [npm_bin("codex"), "exec", *extra, "--skip-git-repo-check", "hello contract"],
            env=env,
            cwd=tmp / "work",
            timeout=180,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert "simulated reply from sim-chat:latency_ms=1" in done.stdout


def test_claude_p_uses_profile_model_and_keyring_key(world) -> None:  # type: ignore[no-untyped-def]
    url, key_name, env, tmp, secret = world
    settings = tmp / "claude" / "settings.json"
    settings.write_text(json.dumps({"permissions": {"deny": ["Read(./.env)"]}, "theme": "dark"}))
    judgeaudit(
        env,
        "profile",
        "add",
        "ctr-claude",
        "--app",
        "claude",
        "--base-url",
        url,
        "--model",
        "sim-chat:latency_ms=2",
        "--key",
        key_name,
    )
    judgeaudit(env, "profile", "use", "ctr-claude")
    text = settings.read_text()
    assert secret not in text and json.loads(text)["permissions"] == {"deny": ["Read(./.env)"]}
    done = tool(
        [npm_bin("claude"), "-p", "hello contract"],
        env={**env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"},
        cwd=tmp / "work",
        timeout=180,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "simulated reply from sim-chat:latency_ms=2" in done.stdout


def run_tool(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env={**env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def test_claude_after_switch_over_leftover_token_uses_keyring_key(world) -> None:  # type: ignore[no-untyped-def]
    url, key_name, env, tmp, _secret = world
    settings = tmp / "claude" / "settings.json"
    leftover = "fake-ccswitch-leftover-" + pysecrets.token_hex(6)
    settings.write_text(
        json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": leftover}, "theme": "dark"}, indent=2) + "\n"
    )
    original = settings.read_bytes()
    judgeaudit(
        env,
        "profile",
        "add",
        "ctr-left",
        "--app",
        "claude",
        "--base-url",
        url,
        "--model",
        "sim-chat:latency_ms=3",
        "--key",
        key_name,
    )
    judgeaudit(env, "profile", "use", "ctr-left")
    assert leftover not in settings.read_text()
    done = run_tool([npm_bin("claude"), "-p", "hello leftover"], env, tmp / "work")
    out, err = done.communicate(timeout=180)
    assert done.returncode == 0, out[-2000:] + err[-2000:]
    assert "simulated reply from sim-chat:latency_ms=3" in out  # the server requires the key
    judgeaudit(env, "profile", "off", "claude")
    assert settings.read_bytes() == original  # the user's own file, token included


def test_two_concurrent_execs_reach_their_own_endpoints(world, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    url, key_name, env, tmp, _secret = world
    # A private temp dir: the check below must see only this test's settings layers,
    # not those of another run sharing /tmp.
    private_tmp = tmp / "tmpdir"
    private_tmp.mkdir()
    env = {**env, "TMPDIR": str(private_tmp)}
    other_secret = "sk-other-" + pysecrets.token_hex(10)
    other_key = "contract-b-" + pysecrets.token_hex(6)
    settings = tmp / "claude" / "settings.json"
    settings.write_text('{\n  "env": {"ANTHROPIC_AUTH_TOKEN": "fake-leftover-token-0000"}\n}\n')
    config = tmp / "codex" / "config.toml"
    config.write_text('# mine\nmodel = "gpt-5"\n')
    before = (settings.read_bytes(), config.read_bytes())
    with (
        stored_keys(env, {other_key: other_secret}),
        sim_server("--require-key-env", "SIMKEY", env={"SIMKEY": other_secret}) as url_b,
    ):
        for app in ("claude", "codex"):
            for tag, base, key in (("a", url, key_name), ("b", url_b, other_key)):
                judgeaudit(
                    env,
                    "profile",
                    "add",
                    f"x-{app}-{tag}",
                    "--app",
                    app,
                    "--base-url",
                    base,
                    "--model",
                    f"sim-chat:latency_ms={ord(tag)}",
                    "--key",
                    key,
                )
        procs = {
            ("claude", tag): run_tool(
                [
                    *JUDGEAUDIT,
                    "exec",
                    f"x-claude-{tag}",
                    "--",
                    npm_bin("claude"),
                    "-p",
                    f"hello {tag}",
                ],
                env,
                tmp / "work",
            )
            for tag in "ab"
        }
        procs |= {
            ("codex", tag): run_tool(
                [
                    *JUDGEAUDIT,
                    "exec",
                    f"x-codex-{tag}",
                    "--",
                    npm_bin("codex"),
                    "exec",
                    "--skip-git-repo-check",
                    f"hello {tag}",
                ],
                env,
                tmp / "work",
            )
            for tag in "ab"
        }
        for (app, tag), proc in procs.items():
            out, err = proc.communicate(timeout=240)
            assert proc.returncode == 0, (app, tag, out[-1500:], err[-1500:])
            assert f"simulated reply from sim-chat:latency_ms={ord(tag)}" in out, (app, tag)
    assert (settings.read_bytes(), config.read_bytes()) == before
    assert not list(private_tmp.glob("judgeaudit-claude-*.json"))

"""Contract tests: after `profile use`, the real Codex CLI and Claude Code (from npm) send their
request to the embedded server with the keyring key as bearer token and the profile's model."""

from __future__ import annotations

import json
import os
import secrets as pysecrets
import subprocess
import sys
from pathlib import Path

import pytest

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
    env = {
        "JUDGEAUDIT_CONFIG_DIR": str(tmp_path / "cfg"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
        "HOME": str(tmp_path / "home"),
    }
    for name in ("cfg", "claude", "codex", "home", "work"):
        (tmp_path / name).mkdir()
    with sim_server("--require-key-env", "SIMKEY", env={"SIMKEY": secret}) as url:
        full = {**os.environ, **env}
        subprocess.run(
            [sys.executable, "-m", "judgeaudit", "key", "set", key_name],
            input=secret,
            text=True,
            env=full,
            check=True,
            capture_output=True,
        )
        yield url, key_name, full, tmp_path, secret
        subprocess.run(
            [sys.executable, "-m", "judgeaudit", "key", "delete", key_name],
            env=full,
            capture_output=True,
        )


def judgeaudit(env: dict[str, str], *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit", *args], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


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
        done = subprocess.run(
            [npm_bin("codex"), "exec", *extra, "--skip-git-repo-check", "hello contract"],
            cwd=tmp / "work",
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            stdin=subprocess.DEVNULL,
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
    done = subprocess.run(
        [npm_bin("claude"), "-p", "hello contract"],
        cwd=tmp / "work",
        env={**env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"},
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "simulated reply from sim-chat:latency_ms=2" in done.stdout

"""Codex with a key command (`auth = {command}`, what `profile use` writes) refreshes its model
catalog from `/models` and decodes it as `{"models": [...]}`: against an OpenAI-shaped list it
logged `ERROR ... failed to decode models response` and refetched on every lookup (3 per start).
The embedded provider and the bridge answer both shapes; real Codex stays quiet."""

from __future__ import annotations

import os
import secrets as pysecrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bridge_helpers import request_log, served
from tests.contract.test_real_tools import npm_bin

pytestmark = pytest.mark.usefixtures("secret_service")


def test_codex_with_a_key_command_fetches_models_once_or_twice_and_logs_no_error(
    tmp_path: Path,
) -> None:
    secret = "sk-models-" + pysecrets.token_hex(8)
    key = "models-" + pysecrets.token_hex(4)
    for name in ("cfg", "codex", "home", "work"):
        (tmp_path / name).mkdir()
    env = {
        **os.environ,
        "JUDGEAUDIT_CONFIG_DIR": str(tmp_path / "cfg"),
        "CODEX_HOME": str(tmp_path / "codex"),
        "HOME": str(tmp_path / "home"),
    }
    log = tmp_path / "requests.jsonl"

    def ja(*args: str, stdin: str | None = None) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "judgeaudit", *args],
            env=env, input=stdin, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr

    sim = ("sim", "serve", "--port", "0", "--require-key-env", "SIMKEY", "--request-log", str(log))
    with served(*sim, env={"SIMKEY": secret}) as (url, _):
        ja("key", "set", key, stdin=secret)
        try:
            ja("profile", "add", "m", "--app", "codex", "--base-url", url, "--model", "sim-chat",
               "--key", key)  # fmt: skip
            ja("profile", "use", "m")
            assert "auth = {" in (tmp_path / "codex" / "config.toml").read_text()
            done = subprocess.run(
                [npm_bin("codex"), "exec", "--skip-git-repo-check", "hello"],
                cwd=tmp_path / "work", env=env, capture_output=True, text=True, timeout=180,
                stdin=subprocess.DEVNULL,
            )  # fmt: skip
        finally:
            ja("key", "delete", key)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "simulated reply from sim-chat" in done.stdout
    assert "failed to refresh available models" not in done.stderr
    assert " ERROR " not in done.stderr, done.stderr[-2000:]
    fetched = [r for r in request_log(log) if r["path"] == "/v1/models"]
    assert 1 <= len(fetched) <= 2 and all(r["status"] == 200 for r in fetched), fetched

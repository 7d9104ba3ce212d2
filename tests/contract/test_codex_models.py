"""Codex with a key command (`auth = {command}`, what `profile use` writes) refreshes its model
catalog from `/models` and decodes it as `{"models": [...]}`: against an OpenAI-shaped list it
logged `ERROR ... failed to decode models response` and refetched on every lookup (3 per start).
The embedded provider and the bridge answer both shapes; real Codex stays quiet."""

from __future__ import annotations

import secrets as pysecrets
from pathlib import Path

import pytest

from tests.bridge_helpers import request_log, served
from tests.cli_helpers import cli_ok, stored_keys, tool, tool_env
from tests.contract.test_real_tools import npm_bin

pytestmark = pytest.mark.usefixtures("secret_service")


def test_codex_with_a_key_command_fetches_models_once_or_twice_and_logs_no_error(
    tmp_path: Path,
) -> None:
    secret = "sk-models-" + pysecrets.token_hex(8)
    key = "models-" + pysecrets.token_hex(4)
    env = tool_env(tmp_path)
    log = tmp_path / "requests.jsonl"

    def ja(*args: str) -> None:
        cli_ok(*args, env=env, whole_env=True, timeout=120)

    sim = ("sim", "serve", "--port", "0", "--require-key-env", "SIMKEY", "--request-log", str(log))
    with served(*sim, env={"SIMKEY": secret}) as (url, _), stored_keys(env, {key: secret}):
        ja("profile", "add", "m", "--app", "codex", "--base-url", url, "--model", "sim-chat",
           "--key", key)  # fmt: skip
        ja("profile", "use", "m")
        assert "auth = {" in (tmp_path / "codex" / "config.toml").read_text()
        done = tool([npm_bin("codex"), "exec", "--skip-git-repo-check", "hello"], env=env,
                    cwd=tmp_path / "work")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "simulated reply from sim-chat" in done.stdout
    assert "failed to refresh available models" not in done.stderr
    assert " ERROR " not in done.stderr, done.stderr[-2000:]
    fetched = [r for r in request_log(log) if r["path"] == "/v1/models"]
    assert 1 <= len(fetched) <= 2 and all(r["status"] == 200 for r in fetched), fetched

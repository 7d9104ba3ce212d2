"""Stale model tiers: a CC Switch preset's ANTHROPIC_DEFAULT_*_MODEL / ANTHROPIC_SMALL_FAST_MODEL /
ANTHROPIC_MODEL left in the user's settings.json must not reach the profile's gateway, neither
after a global switch nor through `exec`; the real Claude Code against a gateway that logs every
model id it is asked for."""

from __future__ import annotations

import json
import secrets as pysecrets
import subprocess
from pathlib import Path

import pytest

from tests.bridge_helpers import request_log, served
from tests.cli_helpers import cli, stored_keys, tool, tool_env
from tests.contract.test_real_tools import npm_bin

pytestmark = pytest.mark.usefixtures("secret_service")
MODEL = "sim-chat:latency_ms=4"
HAIKU = "sim-chat:latency_ms=5"  # the profile sets this tier, and only this one
STALE = {
    "ANTHROPIC_MODEL": "glm-4.6",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL": "glm-4.5-air",
    "ANTHROPIC_DEFAULT_SONNET_MODEL": "glm-4.6",
    "ANTHROPIC_DEFAULT_OPUS_MODEL": "glm-4.6",
    "ANTHROPIC_SMALL_FAST_MODEL": "glm-4.5-air",
}


@pytest.mark.parametrize("how", ["use", "exec"])
def test_a_cc_switch_presets_tiers_never_reach_the_new_gateway(tmp_path: Path, how: str) -> None:
    secret = "sk-tiers-" + pysecrets.token_hex(8)
    key = "tiers-" + pysecrets.token_hex(4)
    env = tool_env(tmp_path, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    settings = tmp_path / "claude" / "settings.json"
    cc_switch = {"env": {"ANTHROPIC_BASE_URL": "https://open.bigmodel.cn/api/anthropic", **STALE}}
    settings.write_text(json.dumps(cc_switch, indent=2) + "\n")
    log = tmp_path / "requests.jsonl"

    def ja(*args: str) -> subprocess.CompletedProcess[str]:
        return cli(*args, env=env, timeout=240, cwd=tmp_path / "work", whole_env=True,
                   no_stdin=True)  # fmt: skip

    sim = ("sim", "serve", "--port", "0", "--require-key-env", "SIMKEY", "--request-log", str(log))
    with served(*sim, env={"SIMKEY": secret}) as (url, _), stored_keys(env, {key: secret}):
        added = ja("profile", "add", "t", "--app", "claude", "--base-url",
                   url.removesuffix("/v1"), "--model", MODEL, "--key", key,
                   "--option", f"default_haiku_model={HAIKU}")  # fmt: skip
        assert added.returncode == 0, added.stderr
        runs = [
            ("-p", "hello"),
            ("--model", "haiku", "-p", "hi"),
            ("--model", "sonnet", "-p", "hi"),
        ]
        if how == "use":
            preview = ja("profile", "use", "t", "--dry-run").stdout
            for variable, value in STALE.items():
                set_ = variable in ("ANTHROPIC_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL")
                verb = "replaces your value" if set_ else "removes"
                assert f'{verb} env.{variable} = "{value}"' in preview, preview
            assert ja("profile", "use", "t").returncode == 0
        for args in runs:
            if how == "use":
                done = tool([npm_bin("claude"), *args], env=env, cwd=tmp_path / "work", timeout=240)
            else:
                done = ja("exec", "t", "--", npm_bin("claude"), *args)
            assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    asked = {r.get("model") for r in request_log(log) if r.get("model")}
    assert {MODEL, HAIKU} <= asked  # the profile's model and its haiku tier
    assert any(str(m).startswith("claude-sonnet") for m in asked), asked  # Claude's own default
    assert not asked & set(STALE.values()), asked

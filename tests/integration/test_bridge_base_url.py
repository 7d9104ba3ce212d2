"""A bridged profile's base URL: the bridge sends ``base_url + "/chat/completions"``, nothing
else. One the bridge can never use (Azure's deployment path, which needs an ``api-version``
query) is refused when the profile is written; one that may be right (no ``/v1``: DeepSeek serves
chat at its root) is said at use time, by the first request's error naming the URL it called.
Real processes: ``sim serve --apis chat`` as the gateway, ``judgeaudit bridge`` in front."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.bridge_helpers import post, served
from tests.new_user_helpers import add, cli, home

__all__ = ["home"]  # the fixture, shared

KEY = "sk-upstream-base-url-test-0123456789"
AZURE = "https://acme.openai.azure.com/openai/deployments/gpt-4o"


@pytest.mark.parametrize("app", ["claude", "codex"])
def test_a_bridged_azure_deployment_url_is_refused_with_the_fix(home: Path, app: str) -> None:
    """Accepted before: every request through the bridge then failed at Azure (no api-version)."""
    done = cli(home, "profile", "add", "az", "--app", app, "--base-url", AZURE, "--key-env",
               "AZ_KEY", "--option", "bridge=chat")  # fmt: skip
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert "an Azure OpenAI deployment's URL needs an api-version query" in line, line
    assert "https://acme.openai.azure.com/openai/v1" in line and "nothing was saved" in line
    assert not (home / "cfg" / "profiles" / "az.toml").exists()
    # without the bridge the tool sends the query itself (Codex's query_params): not refused
    add(home, "az", app, AZURE, "--key-env", "AZ_KEY")
    before = (home / "cfg" / "profiles" / "az.toml").read_text()
    edit = cli(home, "profile", "edit", "az", "--option", "bridge=chat")
    assert edit.returncode == 2 and "api-version" in edit.stderr, edit.stderr
    assert (home / "cfg" / "profiles" / "az.toml").read_text() == before


def _profile(config: Path, name: str, app: str, base_url: str) -> None:
    config.mkdir(parents=True, exist_ok=True)
    (config / f"{name}.toml").write_text(
        f'name = "{name}"\napp = "{app}"\nbase_url = "{base_url}"\nmodel = "sim-chat"\n'
        'key_env = "GWKEY"\n[options]\nbridge = "chat"\n',
        encoding="utf-8",
    )


@pytest.mark.parametrize(("app", "path"), [("claude", "/v1/messages"), ("codex", "/v1/responses")])
def test_a_base_url_without_v1_names_the_url_the_bridge_called(
    tmp_path: Path, app: str, path: str
) -> None:
    """A Claude profile's usual base URL (no /v1) with bridge = chat: the gateway's 404 reached
    the tool as `upstream HTTP 404: Invalid URL ...`, naming neither the URL called nor the fix."""
    gateway_args = ("sim", "serve", "--port", "0", "--apis", "chat", "--require-key-env", "GWKEY")
    with served(*gateway_args, env={"GWKEY": KEY}) as (gateway, _):
        assert gateway.endswith("/v1"), gateway
        root = gateway.removesuffix("/v1")
        env = {"JUDGEAUDIT_CONFIG_DIR": str(tmp_path / "cfg"), "GWKEY": KEY}
        _profile(tmp_path / "cfg" / "profiles", "novi", app, root)
        _profile(tmp_path / "cfg" / "profiles", "right", app, gateway)
        body = {"model": "sim-chat", "max_tokens": 8, "input": "x",
                "messages": [{"role": "user", "content": "x"}]}  # fmt: skip
        with served("bridge", "novi", "--quiet", env=env) as (bridge, proc):
            status, _, raw = post(bridge + path, body, KEY)
            assert post(bridge + path, body, KEY)[0] == 404
            proc.send_signal(signal.SIGTERM)
            _, log = proc.communicate(timeout=30)
        with served("bridge", "right", "--quiet", env=env) as (bridge, _):
            ok, _, _ = post(bridge + path, body, KEY)
    assert (status, ok) == (404, 200), raw
    message = json.loads(raw)["error"]["message"]
    assert message.startswith("upstream HTTP 404: "), message
    assert f"the bridge called POST {root}/chat/completions;" in message, message
    assert "usually ending in /v1: `judgeaudit profile test novi` tries it" in message, message
    assert KEY not in message + log
    # Claude Code shows a 404 as "an issue with the selected model", not its message: the
    # bridge's log says it (with --quiet too), once
    said = f"upstream HTTP 404: the bridge called POST {root}/chat/completions;"
    assert len([line for line in log.splitlines() if said in line]) == 1, log

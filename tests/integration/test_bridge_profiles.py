"""Profiles with ``bridge = "chat"``: what a global switch writes and says, and what
``profile test`` probes, against the real chat-only embedded provider."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bridge_helpers import served
from tests.cli_helpers import add_profile, make_world, world_env
from tests.cli_helpers import cli as run_cli
from tests.helpers import free_port

KEY = "sk-bridge-profiles-0123456789"


@pytest.fixture(scope="module")
def chat_only() -> Iterator[str]:
    with served("sim", "serve", "--port", "0", "--apis", "chat") as (url, _):
        yield url


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {**world_env(make_world(tmp_path)), "GWKEY": KEY}


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env, timeout=120)


def add(env: dict[str, str], name: str, app: str, url: str, *options: str) -> None:
    flags = [f"--option={o}" for o in options]
    flags.append("--option=key_mode=" + ("env_key" if app == "codex" else "env"))
    add_profile(env, name, app, url, "--model", "sim-chat", "--key-env", "GWKEY", *flags)


@pytest.mark.usefixtures("secret_service")  # the switch stores the bridge's local token
def test_a_global_codex_switch_points_at_the_bridge_and_says_so(home: dict[str, str]) -> None:
    add(home, "gw", "codex", "https://gateway.example/v1", "bridge=chat", "bridge_port=8799")
    done = cli(home, "profile", "use", "gw")
    assert done.returncode == 0, done.stderr
    assert (
        "note: profile gw goes through the bridge: codex will talk to http://127.0.0.1:8799"
        in done.stdout
    )
    assert "keep `judgeaudit bridge gw` running" in done.stdout
    config = (Path(home["CODEX_HOME"]) / "config.toml").read_text()
    assert 'base_url = "http://127.0.0.1:8799/v1"' in config and 'wire_api = "responses"' in config
    # The provider id is the gateway's, as without the bridge (codex resume keeps its history).
    assert 'model_provider = "gateway"' in config
    assert KEY not in config + done.stdout + done.stderr


@pytest.mark.usefixtures("secret_service")  # the switch stores the bridge's local token
def test_a_global_claude_switch_points_at_the_bridge(home: dict[str, str]) -> None:
    add(home, "gwc", "claude", "https://gateway.example/v1", "bridge=chat")
    done = cli(home, "profile", "use", "gwc")
    assert done.returncode == 0, done.stderr
    env = json.loads((Path(home["CLAUDE_CONFIG_DIR"]) / "settings.json").read_text())["env"]
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:8787"
    assert env["ANTHROPIC_SMALL_FAST_MODEL"] == env["ANTHROPIC_DEFAULT_HAIKU_MODEL"] == "sim-chat"
    assert "keep `judgeaudit bridge gwc` running" in done.stdout


def test_without_the_option_nothing_changes(home: dict[str, str]) -> None:
    add(home, "direct", "codex", "https://gateway.example/v1")
    done = cli(home, "profile", "diff", "direct")
    assert "https://gateway.example/v1" in done.stdout and "bridge" not in done.stdout


def test_profile_test_offers_the_bridge_when_responses_is_missing(
    home: dict[str, str], chat_only: str
) -> None:
    add(home, "gw-test", "codex", chat_only)
    done = cli(home, "profile", "test", "gw-test")
    assert done.returncode == 1
    assert "HTTP 404" in done.stdout
    assert (
        "this is a chat-only gateway; `judgeaudit profile edit gw-test --option bridge=chat`"
        in done.stdout
    )
    add(home, "gw-claude-test", "claude", chat_only)
    done = cli(home, "profile", "test", "gw-claude-test")
    assert done.returncode == 1 and "--option bridge=chat" in done.stdout


def test_profile_test_on_a_bridged_profile_probes_chat_completions(
    home: dict[str, str], chat_only: str
) -> None:
    add(home, "gw-ok", "codex", chat_only, "bridge=chat")
    done = cli(home, "profile", "test", "gw-ok")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("bridge = chat: probing the chat completions the bridge sends")
    assert "chat completion with sim-chat: ok" in done.stdout


@pytest.mark.usefixtures("secret_service")  # the switch stores the bridge's local token
def test_profile_doctor_says_whether_the_bridge_runs(home: dict[str, str], chat_only: str) -> None:
    port = free_port()
    add(home, "gw-doc", "codex", chat_only, "bridge=chat", f"bridge_port={port}")
    assert cli(home, "profile", "use", "gw-doc").returncode == 0
    done = cli(home, "profile", "doctor", "codex")
    assert (
        f"codex: bridge: nothing answers on http://127.0.0.1:{port}; start `judgeaudit bridge gw-doc`"
        in done.stdout
    )
    with served("bridge", "gw-doc", env=home) as (url, _):
        assert url == f"http://127.0.0.1:{port}"
        done = cli(home, "profile", "doctor", "codex")
    assert f"codex: bridge: running on http://127.0.0.1:{port} for gw-doc ->" in done.stdout


def test_a_bridge_on_another_loopback_address_is_not_called_reachable(
    home: dict[str, str], chat_only: str
) -> None:
    """The bridge had its own loopback list: ``--host 127.0.0.2`` (this machine only, as the
    profiles' rule says) was warned about as if other machines could reach it."""
    add(home, "gw", "codex", chat_only + "/v1")
    with served("bridge", "gw", "--host", "127.0.0.2", "--port", "0", env=home) as (url, proc):
        assert url.startswith("http://127.0.0.2:")
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        assert proc.stderr is not None
        log = proc.stderr.read()
    assert "not loopback" not in log, log


def test_without_a_keyring_a_bridged_switch_is_refused_and_nothing_written(
    home: dict[str, str],
) -> None:
    """The tool's key is the bridge's local token, kept only in the keyring: with no keyring
    the switch says so and leaves the files alone (it never falls back to the real key)."""
    add(home, "gw-nokr", "claude", "https://gateway.example/v1", "bridge=chat")
    done = cli({**home, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}, "profile",
               "use", "gw-nokr")  # fmt: skip
    assert done.returncode != 0
    assert "the bridge's local token of profile 'gw-nokr' lives there; nothing was changed" in (
        done.stderr
    )
    assert not (Path(home["CLAUDE_CONFIG_DIR"]) / "settings.json").exists()

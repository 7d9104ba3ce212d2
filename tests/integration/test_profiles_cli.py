"""Profiles and keys through the CLI, with the real Secret Service (gnome-keyring over D-Bus)."""

from __future__ import annotations

import json
import os
import secrets as pysecrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import cli as run_cli
from tests.cli_helpers import make_world, world_env
from tests.helpers import sim_server

pytestmark = pytest.mark.usefixtures("secret_service")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return world_env(make_world(tmp_path))


def cli(
    env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env, stdin=stdin, timeout=120)


def unique_key(prefix: str) -> str:
    return f"{prefix}-{pysecrets.token_hex(8)}"


def test_key_lifecycle_never_shows_the_key(home: dict[str, str]) -> None:
    name = unique_key("t")
    secret = "sk-" + pysecrets.token_hex(12)
    stored = cli(home, "key", "set", name, stdin=secret + "\n")
    assert stored.returncode == 0 and secret not in stored.stdout and secret[-4:] in stored.stdout
    status = cli(home, "key", "status", name)
    assert (
        "Secret Service" in status.stdout  # storage_label's words
        and "stored" in status.stdout
        and secret not in status.stdout
    )
    assert cli(home, "key", "print", name).stdout == secret + "\n"
    assert cli(home, "key", "delete", name).returncode == 0
    missing = cli(home, "key", "print", name)
    assert missing.returncode == 1 and "no stored key" in missing.stderr
    again = cli(home, "key", "delete", name)  # docs/cli.md's exit 1: nothing to delete
    assert (again.returncode, again.stdout) == (1, ""), again.stdout
    assert again.stderr == (
        f"judgeaudit: key delete {name}: no stored key {name}; nothing was deleted "
        "(`judgeaudit key status` lists the stored keys)\n"
    )


def test_no_keyring_backend_is_one_clear_line(home: dict[str, str]) -> None:
    done = cli(
        {**home, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"},
        "key",
        "set",
        "x",
        stdin="sk-whatever\n",
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "no usable OS keyring" in done.stderr
    assert "key_env" in done.stderr


def test_profile_add_use_and_refusals(home: dict[str, str], tmp_path: Path) -> None:
    added = cli(
        home,
        "profile",
        "add",
        "mine",
        "--app",
        "codex",
        "--base-url",
        "https://gw.example/v1",
        "--model",
        "m1",
        "--key",
        "gw",
    )
    assert added.returncode == 0, added.stderr
    bad = cli(
        home,
        "profile",
        "add",
        "utm",
        "--app",
        "sdk",
        "--base-url",
        "https://taotoken.net/api?utm_source=taotoken_aicg_blog_end",
    )
    assert bad.returncode == 2 and "query string" in bad.stderr
    config = tmp_path / "codex" / "config.toml"
    config.write_text((FIXTURES / "codex-config.toml").read_text())
    diff = cli(home, "profile", "diff", "mine")
    assert '+model_provider = "gw"' in diff.stdout  # one provider id per gateway host
    assert config.read_text() == (FIXTURES / "codex-config.toml").read_text()
    used = cli(home, "profile", "use", "mine")
    assert used.returncode == 0 and "backup: codex-" in used.stdout
    listed = cli(home, "profile", "list").stdout
    assert "* mine" in listed
    config.write_text("model = [\n")
    refused = cli(home, "profile", "use", "mine")
    assert (
        refused.returncode == 2
        and f"{config}:" in refused.stderr
        and "nothing was changed" in refused.stderr
    )
    assert config.read_text() == "model = [\n"
    assert "codex-" in cli(home, "profile", "backups").stdout


def test_concurrent_use_commands_serialize(home: dict[str, str], tmp_path: Path) -> None:
    settings = tmp_path / "claude" / "settings.json"
    settings.write_text((FIXTURES / "claude-settings.json").read_text())
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "judgeaudit", "profile", "use", name],
            env={**os.environ, **home},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name in ("taotoken-claude", "deepseek-claude", "anthropic-claude", "local-sim-claude")
    ]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    data = json.loads(settings.read_text())  # valid JSON, all user keys intact
    assert data["hooks"] and data["statusLine"] and data["enabledPlugins"]
    backups = cli(home, "profile", "backups").stdout.splitlines()
    assert len(backups) == 4  # one per switch: each saw the previous one's result


def test_env_and_exec_use_the_keyring_key(home: dict[str, str]) -> None:
    secret = "sk-" + pysecrets.token_hex(12)
    name = unique_key("sdk")
    cli(home, "key", "set", name, stdin=secret)
    cli(
        home,
        "profile",
        "add",
        "tt",
        "--app",
        "sdk",
        "--base-url",
        "https://taotoken.net/api",
        "--key",
        name,
        "--option",
        "env_prefix=TAOTOKEN",
    )
    exports = cli(home, "env", "tt", "--shell", "fish").stdout
    assert f"set -gx TAOTOKEN_API_KEY '{secret}'" in exports
    ran = cli(
        home,
        "exec",
        "tt",
        "--",
        sys.executable,
        "-c",
        "import os; print(os.environ['OPENAI_BASE_URL'], os.environ['TAOTOKEN_API_KEY'][-4:])",
    )
    assert ran.stdout.strip() == f"https://taotoken.net/api {secret[-4:]}"
    cli(home, "key", "delete", name)


def test_profile_test_probes_what_each_tool_calls(home: dict[str, str]) -> None:
    secret = "sk-" + pysecrets.token_hex(12)
    name = unique_key("probe")
    with sim_server("--require-key-env", "SIMKEY", env={"SIMKEY": secret}) as url:
        root = url.removesuffix("/v1")
        for app, base in (("codex", url), ("claude", root), ("sdk", url), ("sdk", root)):
            profile = f"probe-{app}-{len(base)}"
            added = cli(
                home,
                "profile",
                "add",
                profile,
                "--app",
                app,
                "--base-url",
                base,
                "--model",
                "sim-chat",
                "--key",
                name,
            )
            assert added.returncode == 0, added.stderr
        cli(home, "key", "set", name, stdin="wrong-" + secret)
        rejected = cli(home, "profile", "test", f"probe-codex-{len(url)}")
        assert rejected.returncode == 1 and "rejected the API key" in rejected.stdout
        assert secret[-6:] not in rejected.stdout
        cli(home, "key", "set", name, stdin=secret)
        codex = cli(home, "profile", "test", f"probe-codex-{len(url)}")
        assert codex.returncode == 0 and "Responses API with sim-chat: ok" in codex.stdout
        claude = cli(home, "profile", "test", f"probe-claude-{len(root)}")
        assert claude.returncode == 0, claude.stdout + claude.stderr
        assert "Anthropic Messages with sim-chat: ok" in claude.stdout
        assert f"{root}/v1/messages" in claude.stdout  # what Claude Code calls
        sdk = cli(home, "profile", "test", f"probe-sdk-{len(url)}")
        assert sdk.returncode == 0 and "chat completion with sim-chat: ok" in sdk.stdout
        wrong = cli(home, "profile", "test", f"probe-sdk-{len(root)}")  # the base lacks /v1
        assert wrong.returncode == 1 and "HTTP 404" in wrong.stdout
        assert f"use base URL {url}" in wrong.stdout
    cli(home, "key", "delete", name)


def test_run_spec_endpoint_from_profile_uses_keyring_key(
    home: dict[str, str], tmp_path: Path
) -> None:
    from tests.audit_helpers import write_spec

    secret = "sk-" + pysecrets.token_hex(12)
    name = unique_key("spec")
    with sim_server("--require-key-env", "SIMKEY", env={"SIMKEY": secret}) as url:
        cli(home, "key", "set", name, stdin=secret)
        cli(home, "profile", "add", "gw", "--app", "sdk", "--base-url", url, "--key", name)
        spec = write_spec(tmp_path / "spec.toml")
        spec.write_text(spec.read_text().replace('base_url = "embedded"', 'profile = "gw"'))
        done = cli(home, "run", str(spec), "--out", str(tmp_path / "out"), "--events", "jsonl")
        assert done.returncode == 0, done.stderr
        manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
        assert manifest["models"]["judge"]["base_url"] == "profile:gw"
        assert secret not in (tmp_path / "out" / "manifest.json").read_text()
        assert secret not in (tmp_path / "out" / "judge_logs.jsonl").read_text()
    cli(home, "key", "delete", name)

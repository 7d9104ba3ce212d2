"""The canary-key leak test: a recognisable key sits in the keyring and in every environment
variable a command might read; every command in the table runs, and all stdout/stderr and every
file written anywhere under the test's root (config, tool files, backups, audit dir, logs) is
grepped for it. Add a row for every new command (``Row(id, args)``); ``prints_key`` is only for
commands whose job is to print the key (``key print``, ``env``), and then only on stdout."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import sim_server

pytestmark = pytest.mark.usefixtures("secret_service")
CANARY = "sk-CANARY-" + "7f3e9a1c5b2d4e6f8a0b"
KEY = "canarykey"


@dataclass
class Row:
    id: str
    args: tuple[str, ...]
    prints_key: bool = False  # the command's purpose is to print the key on stdout
    stdin: str | None = None


ROWS = [
    Row("key-set", ("key", "set", KEY), stdin=CANARY + "\n"),
    Row("key-status", ("key", "status")),
    Row("key-print", ("key", "print", KEY), prints_key=True),
    Row(
        "add-sdk",
        (
            "profile",
            "add",
            "can-sdk",
            "--app",
            "sdk",
            "--base-url",
            "{url}",
            "--model",
            "sim-chat",
            "--key",
            KEY,
        ),
    ),
    Row(
        "add-claude",
        (
            "profile",
            "add",
            "can-claude",
            "--app",
            "claude",
            "--base-url",
            "{root}",
            "--model",
            "sim-chat",
            "--key",
            KEY,
        ),
    ),
    Row(
        "add-inline",
        (
            "profile",
            "add",
            "can-inline",
            "--app",
            "claude",
            "--base-url",
            "{root}",
            "--key",
            KEY,
            "--option",
            "key_mode=inline",
        ),
    ),
    Row(
        "add-codex",
        (
            "profile",
            "add",
            "can-codex",
            "--app",
            "codex",
            "--base-url",
            "{url}",
            "--model",
            "sim-chat",
            "--key",
            KEY,
        ),
    ),
    Row("list", ("profile", "list")),
    Row("show", ("profile", "show", "can-claude")),
    Row("edit", ("profile", "edit", "can-sdk", "--model", "sim-chat:latency_ms=1")),
    Row("diff-inline", ("profile", "diff", "can-inline")),
    Row("use-inline", ("profile", "use", "can-inline")),
    Row("use-away-from-inline", ("profile", "use", "can-claude")),
    Row("use-codex", ("profile", "use", "can-codex")),
    Row("use-sdk", ("profile", "use", "can-sdk")),
    Row("backups", ("profile", "backups")),
    Row("doctor", ("profile", "doctor")),
    Row("test-sdk", ("profile", "test", "can-sdk")),
    Row("test-claude", ("profile", "test", "can-claude")),
    Row("test-codex", ("profile", "test", "can-codex")),
    Row("env", ("env", "can-sdk"), prints_key=True),
    Row("exec", ("exec", "can-sdk", "--", sys.executable, "-c", "print('ran')")),
    Row("import", ("profile", "import", "{root_dir}/list.json")),
    Row("run", ("run", "{root_dir}/spec.toml", "--out", "{root_dir}/out", "--events", "jsonl")),
    Row("report", ("report", "{root_dir}/out", "--format", "json")),
    Row("off-claude", ("profile", "off", "claude")),
    Row("off-codex", ("profile", "off", "codex")),
]


def test_no_command_leaks_the_canary_key(tmp_path: Path) -> None:
    from tests.audit_helpers import write_spec

    for name in ("cfg", "claude", "codex", "home", "work"):
        (tmp_path / name).mkdir()
    (tmp_path / "claude" / "settings.json").write_text('{"theme": "dark"}\n')
    (tmp_path / "list.json").write_text(
        '{"profiles": [{"name": "bad", "app": "sdk", "base_url": "' + CANARY + '"}]}'
    )
    env = {
        **os.environ,
        "JUDGEAUDIT_CONFIG_DIR": str(tmp_path / "cfg"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
        "HOME": str(tmp_path / "home"),
        "OPENAI_API_KEY": CANARY,  # anything reading the environment sees the canary too
        "SIMKEY": CANARY,
    }
    leaks: list[str] = []
    with sim_server("--require-key-env", "SIMKEY", env={"SIMKEY": CANARY}) as url:
        spec = write_spec(tmp_path / "spec.toml")
        spec.write_text(spec.read_text().replace('base_url = "embedded"', 'profile = "can-sdk"'))
        for row in ROWS:
            args = [
                a.replace("{url}", url)
                .replace("{root}", url.removesuffix("/v1"))
                .replace("{root_dir}", str(tmp_path))
                for a in row.args
            ]
            done = subprocess.run(
                [sys.executable, "-m", "judgeaudit", *args],
                input=row.stdin,
                capture_output=True,
                text=True,
                timeout=300,
                env=env,
                cwd=tmp_path / "work",
            )
            assert "Traceback" not in done.stderr, (row.id, done.stderr[-2000:])
            if CANARY in done.stderr or (CANARY in done.stdout and not row.prints_key):
                leaks.append(f"{row.id}: output")
            if row.prints_key:
                assert CANARY in done.stdout, row.id  # the row really had the key to leak
            for path in tmp_path.rglob("*"):
                if path.name == "list.json" or not path.is_file() or path.is_symlink():
                    continue
                inline_now = row.id == "use-inline" and path.name == "settings.json"
                if CANARY.encode() in path.read_bytes() and not inline_now:
                    leaks.append(f"{row.id}: {path.relative_to(tmp_path)}")
    subprocess.run([sys.executable, "-m", "judgeaudit", "key", "delete", KEY], env=env)
    assert leaks == []

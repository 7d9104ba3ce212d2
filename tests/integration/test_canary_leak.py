"""The canary-key leak test: a recognisable key sits in the keyring and in every environment
variable a command might read; every command in the table runs, and all stdout/stderr and every
file written anywhere under the test's root (config, tool files, backups, audit dir, logs) is
grepped for it. Add a row for every new command (``Row(id, args)``); ``prints_key`` is only for
commands whose job is to print the key (``key print``, ``env``), and then only on stdout.

A second canary is a leftover token the user's ``settings.json`` holds (what CC Switch leaves):
a switch removes it, and it must then sit in no file but the keyring, backups included, until
``restore`` or ``off`` puts the user's own file back."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import sim_server

pytestmark = pytest.mark.usefixtures("secret_service")
CANARY = "sk-CANARY-" + "7f3e9a1c5b2d4e6f8a0b"
LEFTOVER = "sk-LEFTOVER-" + "3c1d5e7f9a2b4c6d8e0f"
KEY = "canarykey"


def leftover_in_settings(root: Path) -> None:
    settings = root / "claude" / "settings.json"
    settings.write_text(
        json.dumps({"theme": "dark", "env": {"ANTHROPIC_AUTH_TOKEN": LEFTOVER}}, indent=2) + "\n"
    )


@dataclass
class Row:
    id: str
    args: tuple[str, ...]
    prints_key: bool = False  # the command's purpose is to print the key on stdout
    stdin: str | None = None
    setup: Callable[[Path], None] | None = None
    users_file: bool = False  # settings.json is the user's own again (until the next `use`)
    succeeds: bool = False  # the command must work (else the row would prove nothing)


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
    Row("diff-leftover", ("profile", "diff", "can-claude"), setup=leftover_in_settings),
    Row("use-over-leftover", ("profile", "use", "can-claude")),
    Row("restore-leftover", ("profile", "restore", "{last_backup}"), users_file=True),
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
    # Issue 27: re-judge, compare, exports and imports see the key too (or are handed it).
    Row("rejudge", ("rejudge", "{root_dir}/out", "--out", "{root_dir}/rj", "--events", "jsonl")),
    Row(
        "rejudge-url-with-key",
        (
            "rejudge",
            "{root_dir}/out",
            "--out",
            "{root_dir}/rj-refused",
            "--judge-endpoint",
            "http://me:" + CANARY + "@127.0.0.1:9/v1",
            "--judge-key-env",
            "SIMKEY",
        ),
    ),
    Row("compare", ("compare", "{root_dir}/out", "{root_dir}/rj", "--format", "json")),
    Row("report-csv", ("report", "{root_dir}/rj", "--format", "csv")),
    Row("report-html", ("report", "{root_dir}/rj", "--format", "html")),
    Row("review-export", ("review", "export", "{root_dir}/out", "--file", "{root_dir}/rv.csv")),
    # This wave's readers: trend, the DuckDB engine over the run's Parquet and over shards, the
    # leaderboard.
    Row("trend", ("trend", "{root_dir}/out", "--format", "json"), succeeds=True),
    Row(
        "trend-html",
        ("trend", "{root_dir}/out", "--format", "html", "--output", "{root_dir}/t.html"),
        succeeds=True,
    ),
    Row(
        "report-duckdb",
        ("report", "{root_dir}/out", "--engine", "duckdb", "--format", "json"),
        succeeds=True,
    ),
    Row(
        "export-parquet-shards",
        ("export", "parquet", "{root_dir}/out", "--to", "{root_dir}/pq", "--partition", "period"),
        succeeds=True,
    ),
    Row(
        "report-duckdb-shards",
        (
            "report",
            "{root_dir}/out",
            "--engine",
            "duckdb",
            "--parquet",
            "{root_dir}/pq",
            "--format",
            "html",
        ),
        succeeds=True,
    ),
    Row("judges", ("judges", "{root_dir}/out", "{root_dir}/rj"), succeeds=True),
    Row(
        "judges-md", ("judges", "{root_dir}/out", "{root_dir}/rj", "--format", "md"), succeeds=True
    ),
    Row(
        "import-rollouts",
        ("import", "tau-bench", "{root_dir}/tau.json", "--out", "{root_dir}/p.jsonl"),
    ),
    Row(
        "import-agent-key",
        (
            "import",
            "tau-bench",
            "{root_dir}/tau.json",
            "--agent",
            CANARY,
            "--out",
            "{root_dir}/p2.jsonl",
        ),
    ),
    Row("off-claude", ("profile", "off", "claude"), users_file=True),
    Row("off-codex", ("profile", "off", "codex"), users_file=True),
]


@pytest.mark.timeout(1500)  # ~52 real commands, several against the keyring daemon (873 s here)
def test_no_command_leaks_the_canary_key(tmp_path: Path) -> None:
    from tests.audit_helpers import write_spec
    from tests.badinput.import_cases import tau, tau_file

    for name in ("cfg", "claude", "codex", "home", "work"):
        (tmp_path / name).mkdir()
    (tmp_path / "claude" / "settings.json").write_text('{"theme": "dark"}\n')
    (tmp_path / "list.json").write_text(
        '{"profiles": [{"name": "bad", "app": "sdk", "base_url": "' + CANARY + '"}]}'
    )
    (tmp_path / "tau.json").write_text(tau_file(tau(0, 0), tau(0, 1)))
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
        users_own = False  # settings.json is the user's own file, leftover token included
        for row in ROWS:
            if row.setup:
                row.setup(tmp_path)
            if row.setup or row.users_file:
                users_own = True
            elif row.args[:2] == ("profile", "use"):
                users_own = False
            args = [
                a.replace("{url}", url)
                .replace("{root}", url.removesuffix("/v1"))
                .replace("{root_dir}", str(tmp_path))
                .replace("{last_backup}", last_backup(env))
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
            assert done.returncode == 0 or not row.succeeds, (row.id, done.stderr[-2000:])
            if CANARY in done.stderr or (CANARY in done.stdout and not row.prints_key):
                leaks.append(f"{row.id}: output")
            if row.prints_key:
                assert CANARY in done.stdout, row.id  # the row really had the key to leak
            if LEFTOVER in done.stdout + done.stderr:
                leaks.append(f"{row.id}: output (leftover)")
            for path in tmp_path.rglob("*"):
                if path.name == "list.json" or not path.is_file() or path.is_symlink():
                    continue
                is_settings = path == tmp_path / "claude" / "settings.json"
                inline_now = row.id == "use-inline" and is_settings
                if CANARY.encode() in path.read_bytes() and not inline_now:
                    leaks.append(f"{row.id}: {path.relative_to(tmp_path)}")
                if LEFTOVER.encode() in path.read_bytes() and not (is_settings and users_own):
                    leaks.append(f"{row.id}: {path.relative_to(tmp_path)} (leftover)")
        leaks += bridge_leaks(env)
    assert LEFTOVER in (tmp_path / "claude" / "settings.json").read_text()  # off gave it back
    subprocess.run([sys.executable, "-m", "judgeaudit", "key", "delete", KEY], env=env)
    assert leaks == []


def last_backup(env: dict[str, str]) -> str:
    """The newest backup's id (``profile backups`` lists them oldest first)."""
    listed = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "profile", "backups"],
        capture_output=True,
        text=True,
        env=env,
    ).stdout.split()
    return next((w for w in reversed(listed) if w.startswith("claude-")), "none")


def bridge_leaks(env: dict[str, str]) -> list[str]:
    """The bridge in front of the canary profile: good and refused requests in both formats;
    no reply and no log line may hold the key (which is the profile's and the client's)."""
    from tests.bridge_helpers import post, served

    leaks = []
    good = {"model": "sim-chat", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
    bad_block = {**good, "messages": [{"role": "user", "content": [{"type": "image"}]}]}
    with served("bridge", "can-sdk", env=env) as (url, proc):
        replies = [
            post(url + "/v1/messages", good, CANARY),
            post(url + "/v1/messages", bad_block, CANARY),
            post(url + "/v1/responses", {"model": "sim-chat", "input": "hi"}, CANARY),
            post(url + "/v1/responses", {"model": "sim-chat", "tools": 5}, CANARY),
            post(url + "/v1/responses", {"model": "sim-chat", "input": "hi"}, "wrong-key"),
        ]
        assert replies[0][0] == 200 and replies[1][0] == 400, replies[:2]
        for index, (_status, headers, raw) in enumerate(replies):
            if CANARY in raw.decode("utf-8", "replace") + str(headers):
                leaks.append(f"bridge reply {index}")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        if CANARY in out + err:
            leaks.append("bridge log")
    return leaks

"""Bad input to the profile commands, one case per row: exit code, one line naming the
file/field, no traceback, nothing written. Plus the CC Switch import against the upstream schema
and 100 concurrent switches of both apps."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli_helpers import cli as run_cli
from tests.cli_helpers import world_env

pytestmark = pytest.mark.usefixtures("secret_service")


def cli(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI in the isolated world under ``home``."""
    return run_cli(*args, env=world_env(home), stdin=stdin, timeout=120)


def snapshot(root: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or path.is_file():
            out[str(path)] = path.read_bytes() if path.is_file() and not path.is_symlink() else b"L"
    return out


def fifo(home: Path) -> None:
    os.mkfifo(home / "claude" / "settings.json")


def symlink_to_device(home: Path) -> None:
    (home / "claude" / "settings.json").symlink_to("/dev/null")


def directory(home: Path) -> None:
    (home / "claude" / "settings.json").mkdir()


def write(rel: str, content: bytes) -> Callable[[Path], None]:
    def setup(home: Path) -> None:
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(content)

    return setup


def read_only(rel: str, content: bytes) -> Callable[[Path], None]:
    def setup(home: Path) -> None:
        write(rel, content)(home)
        (home / rel).chmod(0o444)

    return setup


@dataclass
class Case:
    id: str
    args: tuple[str, ...]
    expect: str  # in the one stderr line
    setup: Callable[[Path], None] | None = None
    code: int = 2


CASES = [
    Case(  # issue 22: the line said "name: missing or not a string", not what to write
        "show-profile-file-without-name",
        ("profile", "show", "mine"),
        'mine.toml: name: missing; add a line name = "mine"',
        write("cfg/profiles/mine.toml", b'app = "sdk"\nbase_url = "https://gw.example/v1"\n'),
    ),
    Case(
        "use-profile-file-name-not-text",
        ("profile", "use", "num"),
        'num.toml: name: a number (3), not text; give a name of letters, digits, "-" and "_" '
        'in quotes, e.g. name = "num"',
        write(
            "cfg/profiles/num.toml", b'name = 3\napp = "sdk"\nbase_url = "https://gw.example/v1"\n'
        ),
    ),
    Case("use-fifo", ("profile", "use", "taotoken-claude"), "is a FIFO", fifo),
    Case(
        "use-device",
        ("profile", "use", "taotoken-claude"),
        "is a character device",
        symlink_to_device,
    ),
    Case("use-directory", ("profile", "use", "taotoken-claude"), "is a directory", directory),
    Case(
        "use-nan",
        ("profile", "use", "taotoken-claude"),
        "settings.json:1:11: invalid JSON (NaN",
        write("claude/settings.json", b'{"x": [1, NaN]}'),
    ),
    Case(
        "use-infinity",
        ("profile", "use", "taotoken-claude"),
        "Infinity is not valid JSON",
        write("claude/settings.json", b'{"x": -Infinity}'),
    ),
    Case(
        "use-not-utf8",
        ("profile", "use", "taotoken-claude"),
        "settings.json: not UTF-8",
        write("claude/settings.json", b'{"x": "\xff"}'),
    ),
    Case(
        "use-env-not-object",
        ("profile", "use", "taotoken-claude"),
        "'env' must be an object",
        write("claude/settings.json", b'{"env": []}'),
    ),
    Case(
        "use-user-provider-table",
        ("profile", "use", "taotoken-codex"),
        "[model_providers.taotoken] was not written by judgeaudit",
        write("codex/config.toml", b'[model_providers.taotoken]\nname = "mine"\n'),
    ),
    Case(
        "use-bad-toml",
        ("profile", "use", "taotoken-codex"),
        "config.toml:1:",
        write("codex/config.toml", b"model = [\n"),
    ),
    Case(  # a read-only file was replaced (an atomic rename succeeds), its signal lost
        "use-read-only-settings",
        ("profile", "use", "taotoken-claude"),
        "settings.json: is read-only (mode 0444), so judgeaudit leaves it alone; make it "
        "writable (chmod u+w",
        read_only("claude/settings.json", b'{"theme": "dark"}\n'),
    ),
    Case(
        "use-read-only-config",
        ("profile", "use", "taotoken-codex"),
        "config.toml: is read-only (mode 0444)",
        read_only("codex/config.toml", b'model = "o3"\n'),
    ),
    Case("use-unknown", ("profile", "use", "nope"), "profile 'nope' not found"),
    Case("use-path-name", ("profile", "use", "../etc"), "profile name '../etc'"),
    Case(
        "add-http-only",
        ("profile", "add", "x", "--app", "sdk", "--base-url", "http://"),
        "base_url: the URL has no valid host",
    ),
    Case(
        "add-credentials",
        (
            "profile",
            "add",
            "x",
            "--app",
            "sdk",
            "--base-url",
            "https://me:sk-cred-secret-1234@gw.example/v1",
        ),
        "carries credentials",
    ),
    Case(
        "add-bad-port",
        ("profile", "add", "x", "--app", "sdk", "--base-url", "https://gw.example:99999/v1"),
        "bad host or port",
    ),
    Case(
        "add-utm",
        (
            "profile",
            "add",
            "x",
            "--app",
            "sdk",
            "--base-url",
            "https://taotoken.net/api?utm_source=x",
        ),
        "query string",
    ),
    Case(
        "add-ftp",
        ("profile", "add", "x", "--app", "claude", "--base-url", "ftp://gw.example"),
        "must start with http:// or https:// (e.g. https://taotoken.net/api (Claude",
    ),
    Case(
        "add-bad-option",
        (
            "profile",
            "add",
            "x",
            "--app",
            "codex",
            "--base-url",
            "https://a.example/v1",
            "--option",
            "provider_id=a.b",
        ),
        "options.provider_id",
    ),
    Case(
        "add-builtin-provider",
        (
            "profile",
            "add",
            "x",
            "--app",
            "codex",
            "--base-url",
            "https://a.example/v1",
            "--option",
            "provider_id=openai",
        ),
        "built-in Codex provider id",
    ),
    Case(
        "add-unicode-name",
        ("profile", "add", "智谱", "--app", "sdk", "--base-url", "https://a.example/v1"),
        "profile name '智谱'",
    ),
    Case("off-unknown-app", ("profile", "off", "cursor"), "invalid choice"),
    Case("restore-missing", ("profile", "restore", "claude-1-1"), "backup 'claude-1-1' not found"),
    Case(
        "import-not-utf8",
        ("profile", "import", "{home}/p.json"),
        "p.json: not UTF-8",
        write("p.json", b"\xff\xfe"),
    ),
    Case(
        "import-bad-json",
        ("profile", "import", "{home}/p.json"),
        "p.json:1:2: invalid JSON",
        write("p.json", b"{,}"),
    ),
    Case(
        "ccswitch-not-a-db",
        ("profile", "import-ccswitch", "--db", "{home}/c.db"),
        "c.db: cannot read CC Switch providers",
        write("c.db", b"not sqlite at all, just text"),
    ),
    Case("exec-no-command", ("exec", "local-sim"), "give a command after --"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, case: Case) -> None:
    for name in ("cfg", "claude", "codex", "home"):
        (tmp_path / name).mkdir()
    if case.setup:
        case.setup(tmp_path)
    before = snapshot(tmp_path)
    args = [a.replace("{home}", str(tmp_path)) for a in case.args]
    done = cli(tmp_path, *args)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == case.code, done.stderr
    assert "Traceback" not in done.stderr and "sk-cred-secret" not in done.stderr + done.stdout
    if case.expect == "invalid choice":  # argparse: usage line + one error line
        assert case.expect in lines[-1]
    else:
        assert len(lines) == 1 and case.expect in lines[0], done.stderr
    assert snapshot(tmp_path) == before  # nothing written, no half file, no backup


def test_list_survives_one_bad_profile_file(tmp_path: Path) -> None:
    (tmp_path / "cfg" / "profiles").mkdir(parents=True)
    (tmp_path / "cfg" / "profiles" / "broken.toml").write_text(
        'name = "broken"\napp = "sdk"\nbase_url = "http:"\n'
    )
    done = cli(tmp_path, "profile", "list")
    assert done.returncode == 0 and "taotoken-sdk" in done.stdout
    assert "broken.toml" in done.stderr and "Traceback" not in done.stderr


def test_corrupt_backup_does_not_break_later_switches(tmp_path: Path) -> None:
    for name in ("cfg", "claude", "codex", "home"):
        (tmp_path / name).mkdir()
    (tmp_path / "claude" / "settings.json").write_text("{}")
    assert cli(tmp_path, "profile", "use", "taotoken-claude").returncode == 0
    backup = next((tmp_path / "cfg" / "backups").glob("*.json"))
    backup.write_text("{ this is not json")
    again = cli(tmp_path, "profile", "use", "deepseek-claude")
    assert again.returncode == 0 and "Traceback" not in again.stderr
    listed = cli(tmp_path, "profile", "backups")
    assert backup.name in listed.stderr and "unreadable backup" in listed.stderr


def test_orphaned_temp_files_are_cleaned_by_the_next_switch(tmp_path: Path) -> None:
    for name in ("cfg", "claude", "codex", "home"):
        (tmp_path / name).mkdir()
    (tmp_path / "claude" / "settings.json").write_text("{}")
    orphan = tmp_path / "claude" / ".settings.json.abc123.tmp"  # what kill -9 mid-write leaves
    orphan.write_bytes(b"x" * 1000)
    assert cli(tmp_path, "profile", "use", "taotoken-claude").returncode == 0
    assert not orphan.exists()


def upstream_db(path: Path) -> None:
    """The providers table as CC Switch creates it (schema.rs, PRIMARY KEY (id, app_type))."""
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE providers (id TEXT NOT NULL, app_type TEXT NOT NULL, name TEXT NOT NULL, "
        "settings_config TEXT NOT NULL, website_url TEXT, category TEXT, created_at INTEGER, "
        "sort_index INTEGER, notes TEXT, icon TEXT, icon_color TEXT, meta TEXT NOT NULL DEFAULT "
        "'{}', is_current BOOLEAN NOT NULL DEFAULT 0, in_failover_queue BOOLEAN NOT NULL DEFAULT 0,"
        " PRIMARY KEY (id, app_type))"
    )

    def claude(base: str, key: str) -> str:
        return json.dumps({"env": {"ANTHROPIC_BASE_URL": base, "ANTHROPIC_AUTH_TOKEN": key}})

    rows = [
        (
            "8c2f0d1e-aaaa",
            "claude",
            "火山方舟",
            claude("https://ark.example/api", "fake-key-ark-1111"),
            "{}",
            0,
        ),
        (
            "b41d77aa-bbbb",
            "claude",
            "智谱",
            claude("https://glm.example/api/anthropic", "fake-key-glm-2222"),
            "{}",
            1,
        ),
        (
            "c0ffee00-cccc",
            "claude",
            "OpenAI via proxy",
            claude("https://oa.example/v1", "fake-key-oa-3333"),
            '{"apiFormat": "openai_chat"}',
            0,
        ),
        (
            "d00d0000-dddd",
            "claude",
            "Broken",
            claude("fake-key-in-url-4444", "fake-key-br-4444"),
            "{}",
            0,
        ),
        (
            "e1",
            "codex",
            "TaoToken",
            json.dumps(
                {
                    "auth": {},
                    "config": 'model = "m-x"\nmodel_provider = "tt"\n[model_providers.tt]\nbase_url = "https://taotoken.net/api/v1"\nwire_api = "responses"\nexperimental_bearer_token = "fake-bearer-5555"\n',
                }
            ),
            "{}",
            1,
        ),
        ("f1", "gemini", "Gemini", "{}", "{}", 0),
    ]
    db.executemany(
        "INSERT INTO providers (id, app_type, name, settings_config, meta, is_current) VALUES (?,?,?,?,?,?)",
        rows,
    )
    db.commit()
    db.close()


def test_ccswitch_import_upstream_schema_cjk_current_and_bearer(tmp_path: Path) -> None:
    for name in ("cfg", "claude", "codex", "home"):
        (tmp_path / name).mkdir()
    upstream_db(tmp_path / "cc.db")
    (tmp_path / "claude" / "settings.json").write_text("{}")
    done = cli(
        tmp_path, "profile", "import-ccswitch", "--db", str(tmp_path / "cc.db"), "--activate"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout + done.stderr
    assert "imported ccswitch-claude-8c2f0d1e-aaa (火山方舟)" in out
    assert "imported ccswitch-claude-b41d77aa-bbb (智谱)" in out
    assert "note: ccswitch-claude-openai-via-proxy: imported with bridge = chat" in out
    assert (
        "skipped ccswitch-claude-broken: " in out
        and "base_url: must start with http" in out
        and "gemini" in out
    )
    assert "current in CC Switch for claude: ccswitch-claude-b41d77aa-bbb" in out
    assert "active claude profile: ccswitch-claude-b41d77aa-bbb" in out
    assert "fake-key" not in out and "fake-bearer" not in out
    assert (
        cli(tmp_path, "key", "print", "ccswitch-codex-taotoken").stdout.strip()
        == "fake-bearer-5555"
    )
    for path in (tmp_path / "cfg").rglob("*"):
        if path.is_file():
            assert b"fake-key" not in path.read_bytes() and b"fake-bearer" not in path.read_bytes()
    for name in ("8c2f0d1e-aaa", "b41d77aa-bbb", "openai-via-proxy"):
        cli(tmp_path, "key", "delete", f"ccswitch-claude-{name}")
    cli(tmp_path, "key", "delete", "ccswitch-codex-taotoken")


def test_100_concurrent_switches_of_both_apps_end_valid(tmp_path: Path) -> None:
    import tomllib

    for name in ("cfg", "claude", "codex", "home"):
        (tmp_path / name).mkdir()
    (tmp_path / "claude" / "settings.json").write_text('{\n  "theme": "dark"\n}\n')
    (tmp_path / "codex" / "config.toml").write_text('# mine\napproval_policy = "on-request"\n')
    env = {**os.environ, **world_env(tmp_path), "JUDGEAUDIT_LOCK_TIMEOUT_S": "600"}
    names = ["taotoken-claude", "deepseek-claude", "taotoken-codex", "local-sim-codex"]
    procs = []
    for i in range(100):  # launched in waves of 25 so 2 cores are not swamped by interpreters
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "judgeaudit", "profile", "use", names[i % 4]],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
        if len(procs) % 25 == 0:
            for proc in procs[-25:]:
                proc.wait(timeout=600)
    failures = [p.stderr.read() if p.stderr else "" for p in procs if p.wait(timeout=600) != 0]
    assert failures == []
    data = json.loads((tmp_path / "claude" / "settings.json").read_text())
    assert data["theme"] == "dark" and "apiKeyHelper" in data
    config = tomllib.loads((tmp_path / "codex" / "config.toml").read_text())
    assert config["approval_policy"] == "on-request" and config["model_provider"]
    assert not list(tmp_path.rglob("*.tmp"))
    assert cli(tmp_path, "profile", "off", "claude").returncode == 0
    assert (tmp_path / "claude" / "settings.json").read_text() == '{\n  "theme": "dark"\n}\n'

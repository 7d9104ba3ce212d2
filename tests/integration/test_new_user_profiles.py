"""The defects a new-user tester found in profiles, exec, doctor, import and the bridge, each
as the user met it: through the CLI, with the real Secret Service keyring. The cases that
involve Codex or Claude Code themselves are in ``tests/contract/test_new_user_tools.py``."""

from __future__ import annotations

import json
import os
import secrets as pysecrets
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_profile_bad_input import snapshot, world_env

pytestmark = pytest.mark.usefixtures("secret_service")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    for name in ("cfg", "claude", "codex", "home", "work"):
        (tmp_path / name).mkdir()
    return tmp_path


def cli(
    home: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judgeaudit", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=home / "work",
        env={**os.environ, **world_env(home), **(env or {})},
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The single stderr line of a refusal (and no traceback)."""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def add(home: Path, name: str, app: str, base_url: str, *extra: str) -> None:
    done = cli(home, "profile", "add", name, "--app", app, "--base-url", base_url, *extra)
    assert done.returncode == 0, done.stderr


# --- 3: a base URL's query string is never printed --------------------------------------------


def test_3_query_string_secrets_never_echoed(home: Path) -> None:
    secret = "sk-QSECRET2222"
    added = cli(
        home,
        "profile",
        "add",
        "x",
        "--app",
        "sdk",
        "--base-url",
        f"https://h.example/v1?utm_source={secret}",
        "--key",
        "k",
    )
    assert added.returncode == 2 and "query string" in one_line(added)
    assert secret not in added.stdout + added.stderr
    (home / "cfg" / "profiles").mkdir()
    (home / "cfg" / "profiles" / "hand.toml").write_text(
        f'name = "hand"\napp = "sdk"\nbase_url = "https://h.example/v1?t={secret}"\nkey = "k"\n'
    )
    listed = cli(home, "profile", "list")
    assert listed.returncode == 0 and "hand.toml" in listed.stderr
    assert secret not in listed.stdout + listed.stderr
    imported = home / "imp.json"
    imported.write_text(
        json.dumps(
            {
                "profiles": [
                    {
                        "name": "gw",
                        "app": "sdk",
                        "base_url": "https://gw.example.com/v1?utm_source=abc&api_key=sk-impSECRET3131",
                    }
                ]
            }
        )
    )
    done = cli(home, "profile", "import", str(imported))
    assert "skipped gw" in done.stdout and "query string" in done.stdout
    assert "impSECRET" not in done.stdout + done.stderr


# --- 4, 5: a profile file that is not UTF-8, or not a regular file ------------------------------


def test_4_non_utf8_profile_file_is_named_not_a_traceback(home: Path) -> None:
    (home / "cfg" / "profiles").mkdir()
    (home / "cfg" / "profiles" / "h9.toml").write_bytes(b"\xff\xfe")
    for args in (("profile", "list"), ("key", "status")):
        done = cli(home, *args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert "h9.toml" in done.stderr and "not UTF-8" in done.stderr
    shown = cli(home, "profile", "show", "h9")
    assert shown.returncode == 2 and "h9.toml" in one_line(shown)


def test_5_fifos_never_hang_doctor_or_list(home: Path) -> None:
    os.mkfifo(home / "claude" / "settings.json")
    os.mkfifo(home / "codex" / "config.toml")
    (home / "cfg" / "profiles").mkdir()
    os.mkfifo(home / "cfg" / "profiles" / "pipe.toml")
    doctor = cli(home, "profile", "doctor")  # the timeout of cli() fails the test on a hang
    assert doctor.returncode == 0, doctor.stderr
    assert doctor.stdout.count("is a FIFO") == 2
    listed = cli(home, "profile", "list")
    assert listed.returncode == 0 and "pipe.toml" in listed.stderr and "FIFO" in listed.stderr
    status = cli(home, "key", "status")
    assert status.returncode == 0 and "pipe.toml" in status.stderr


# --- 14: profile add refuses nonsense ---------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "expect"),
    [
        (("--key", "k", "--price-in", "nan"), "price_in: must be a finite"),
        (("--key", "k", "--price-out", "1e400"), "price_out: must be a finite"),
        (("--key", "k", "--option", "env_prefix=bad prefix"), "options.env_prefix"),
        (("--key", "k", "--model", ""), "model: empty"),
        (("--key", "k", "--model", "line\nbreak"), "model: "),
        ((), "give --key NAME"),
    ],
    ids=["nan", "inf", "env-prefix", "empty-model", "newline-model", "no-key"],
)
def test_14_profile_add_refuses_nonsense(home: Path, extra: tuple[str, ...], expect: str) -> None:
    before = snapshot(home)
    done = cli(
        home, "profile", "add", "x", "--app", "sdk", "--base-url", "https://a.example/v1", *extra
    )
    assert done.returncode == 2 and expect in one_line(done)
    assert snapshot(home) == before


def test_14_hand_written_nan_price_is_refused(home: Path) -> None:
    (home / "cfg" / "profiles").mkdir()
    (home / "cfg" / "profiles" / "n.toml").write_text(
        'name = "n"\napp = "sdk"\nbase_url = "https://a.example/v1"\nkey = "k"\nprice_in = nan\n'
    )
    listed = cli(home, "profile", "list")
    assert "n.toml" in listed.stderr and "price_in" in listed.stderr


def test_14_edit_with_an_empty_model_clears_it(home: Path) -> None:
    add(home, "x", "sdk", "https://a.example/v1", "--key", "k", "--model", "m1")
    done = cli(home, "profile", "edit", "x", "--model", "")
    assert done.returncode == 0, done.stderr
    assert "model" not in cli(home, "profile", "show", "x").stdout


# --- 18: minor input handling ------------------------------------------------------------------


def test_18_base_url_with_a_trailing_space_is_taken_without_it(home: Path) -> None:
    add(home, "sp", "sdk", "https://a.example/v1 ", "--key", "k")
    assert 'base_url = "https://a.example/v1"' in cli(home, "profile", "show", "sp").stdout
    inner = cli(home, "profile", "add", "in", "--app", "sdk", "--base-url", "https://a.exa mple/v1")
    assert inner.returncode == 2 and "white space" in one_line(inner)


def unique(prefix: str) -> str:
    return f"{prefix}-{pysecrets.token_hex(6)}"


# --- 15: a key on the command line is refused, never echoed, never stored ----------------------


def test_15_key_set_with_the_key_on_the_command_line(home: Path) -> None:
    name = unique("e5")
    done = cli(home, "key", "set", name, "sk-ARGV9999", stdin="sk-stdin-value-1234\n")
    assert done.returncode == 2 and "never from the command line" in one_line(done)
    assert "ARGV9999" not in done.stdout + done.stderr and not done.stdout
    assert cli(home, "key", "print", name).returncode == 1  # nothing stored


@pytest.mark.parametrize(
    "args",
    [
        ("key", "set", "sk-ARGV9999"),  # the key given as the name
        ("key", "print", "sk-ARGV9999"),
        ("key", "set", "sk-argv9999lower"),  # a valid-looking name that is a key
        (
            "profile",
            "add",
            "x",
            "--app",
            "sdk",
            "--base-url",
            "https://a.b/v1",
            "--key",
            "sk-argv9999lower",
        ),
        (
            "profile",
            "add",
            "x",
            "--app",
            "sdk",
            "--base-url",
            "https://a.b/v1",
            "--api-key",
            "sk-ARGV9999",
        ),
        (
            "profile",
            "add",
            "x",
            "--app",
            "sdk",
            "--base-url",
            "https://a.b/v1",
            "--option",
            "sk-ARGV9999",
        ),
        ("profile", "use", "taotoken-sdk", "sk-ARGV9999"),
        ("profile", "sk-ARGV9999"),
        ("profile", "off", "sk-ARGV9999"),
        ("profile", "restore", "sk-ARGV9999"),
        ("env", "taotoken-sdk", "sk-ARGV9999"),
        ("env", "taotoken-sdk", "--shell", "sk-ARGV9999"),
        ("bridge", "taotoken-sdk", "--token", "sk-ARGV9999"),
        ("bridge", "taotoken-sdk", "--port", "sk-ARGV9999"),
        ("exec", "sk-ARGV9999", "--", "true"),
    ],
    ids=lambda a: "-".join(w for w in a if not w.startswith(("sk-", "https")))[:40],
)
def test_15_no_command_echoes_a_key_from_argv(home: Path, args: tuple[str, ...]) -> None:
    before = snapshot(home)
    done = cli(home, *args, stdin="")
    assert done.returncode == 2, done.stderr
    one_line(done)
    assert "ARGV9999" not in done.stdout + done.stderr.upper(), done.stderr
    assert snapshot(home) == before


# --- 16: exec passes on a signal death the way a shell does (128 + N) ------------------------


@pytest.mark.parametrize(("signal_name", "code"), [("TERM", 143), ("PIPE", 141), ("INT", 130)])
def test_16_exec_exit_code_of_a_signalled_child(home: Path, signal_name: str, code: int) -> None:
    add(home, "a-sdk", "sdk", "http://127.0.0.1:9/v1", "--key-env", "LOCAL_SIM_KEY")
    done = cli(
        home,
        "exec",
        "a-sdk",
        "--",
        "sh",
        "-c",
        f"kill -{signal_name} $$",
        env={"LOCAL_SIM_KEY": "sk-local-sim-0000"},
    )
    assert done.returncode == code, done.stderr


# --- 17: the bridge logs every request, /v1/models too ---------------------------------------


def test_17_bridge_logs_models_requests(home: Path) -> None:
    import urllib.request

    from tests.bridge_helpers import served

    secret = "sk-bridge-log-" + pysecrets.token_hex(6)
    key = unique("brlog")
    env = world_env(home)
    assert cli(home, "key", "set", key, stdin=secret).returncode == 0
    try:
        sim = ("sim", "serve", "--port", "0", "--apis", "chat")
        with served(*sim) as (upstream, _):
            add(home, "gw", "codex", upstream, "--key", key, "--option", "bridge=chat")
            with served("bridge", "gw", "--port", "0", env=env) as (bridge, proc):
                request = urllib.request.Request(
                    bridge + "/v1/models", headers={"Authorization": f"Bearer {secret}"}
                )
                with urllib.request.urlopen(request, timeout=30) as answer:
                    assert answer.status == 200
                proc.send_signal(signal.SIGINT)  # stop it, then read all it logged
                proc.wait(timeout=30)
                assert proc.stderr is not None
                log = proc.stderr.read()
        assert "GET /v1/models -> 200" in log, log
        assert secret not in log
    finally:
        cli(home, "key", "delete", key)


def test_18_bridge_on_a_bad_host_is_one_line_without_the_loopback_warning(home: Path) -> None:
    add(home, "gw", "codex", "http://127.0.0.1:9/v1", "--key-env", "GWKEY")
    done = cli(home, "bridge", "gw", "--host", "999.1.1.1", env={"GWKEY": "sk-gw-0000000"})
    assert done.returncode == 2 and "cannot listen on 999.1.1.1" in one_line(done)


# --- 6: a value edited by hand after a switch is the user's: the preview says it replaces it ---


def test_6_hand_edited_value_is_named_in_the_preview(home: Path) -> None:
    settings = home / "claude" / "settings.json"
    settings.write_text('{\n  "env": {\n    "ANTHROPIC_MODEL": "my-model"\n  }\n}\n')
    add(home, "a-claude", "claude", "http://127.0.0.1:9", "--model", "m-a", "--key", "ka")
    add(home, "b-claude", "claude", "http://127.0.0.1:8", "--model", "m-b", "--key", "kb")
    assert cli(home, "profile", "use", "a-claude").returncode == 0
    settings.write_text(settings.read_text().replace('"m-a"', '"hand-model"'))
    diff = cli(home, "profile", "diff", "b-claude")
    assert 'note: replaces your value env.ANTHROPIC_MODEL = "hand-model", kept' in diff.stdout
    assert cli(home, "profile", "use", "b-claude").returncode == 0
    assert cli(home, "profile", "off", "claude").returncode == 0
    assert json.loads(settings.read_text())["env"]["ANTHROPIC_MODEL"] == "hand-model"


# --- 7, 8, 9, 18: the CC Switch import ---------------------------------------------------------


def ccswitch_db(path: Path, rows: list[tuple[str, str, str, str, str, int]]) -> None:
    """A providers table with CC Switch's upstream schema (id, app_type primary key, meta,
    is_current)."""
    import sqlite3

    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE providers (id TEXT NOT NULL, app_type TEXT NOT NULL, name TEXT NOT NULL, "
        "settings_config TEXT NOT NULL, website_url TEXT, category TEXT, created_at INTEGER, "
        "sort_index INTEGER, notes TEXT, icon TEXT, icon_color TEXT, meta TEXT NOT NULL DEFAULT "
        "'{}', is_current BOOLEAN NOT NULL DEFAULT 0, in_failover_queue BOOLEAN NOT NULL DEFAULT 0,"
        " PRIMARY KEY (id, app_type))"
    )
    db.executemany(
        "INSERT INTO providers (id, app_type, name, settings_config, meta, is_current) "
        "VALUES (?,?,?,?,?,?)",
        rows,
    )
    db.commit()
    db.close()


def claude_config(base: str, key: str) -> str:
    return json.dumps({"env": {"ANTHROPIC_BASE_URL": base, "ANTHROPIC_AUTH_TOKEN": key}})


def codex_config(base: str, wire_api: str = "responses") -> str:
    config = (
        'model = "m-x"\nmodel_provider = "gw"\n[model_providers.gw]\n'
        f'base_url = "{base}"\nwire_api = "{wire_api}"\n'
    )
    return json.dumps({"auth": {"OPENAI_API_KEY": "fake-codex-key-9999"}, "config": config})


def test_7_activate_says_when_the_current_provider_was_skipped(home: Path) -> None:
    db = home / "cc.db"
    tracking = "https://gw.example/api?utm_source=fake-tracking-7777"
    ccswitch_db(
        db,
        [
            ("t1", "claude", "Tracking URL", claude_config(tracking, "fake-key-1111"), "{}", 1),
            ("o1", "codex", "Codex OAuth", "{}", '{"providerType": "codex_oauth"}', 1),
        ],
    )
    (home / "claude" / "settings.json").write_text("{}\n")
    before = (home / "claude" / "settings.json").read_bytes()
    done = cli(home, "profile", "import-ccswitch", "--db", str(db), "--activate")
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "current in CC Switch for claude: ccswitch-claude-tracking-url" not in out
    assert "CC Switch's current claude provider (Tracking URL) was skipped" in out
    assert "CC Switch's current codex provider (Codex OAuth) was skipped" in out
    assert "nothing activated for claude" in out and "nothing activated for codex" in out
    assert "fake-tracking" not in out and "fake-key" not in out
    assert (home / "claude" / "settings.json").read_bytes() == before


def test_8_invalid_settings_config_json_is_the_reason_given(home: Path) -> None:
    db = home / "cc.db"
    ccswitch_db(db, [("b1", "claude", "Broken JSON", "{not json", "{}", 0)])
    done = cli(home, "profile", "import-ccswitch", "--db", str(db))
    assert (
        "skipped ccswitch-claude-broken-json (Broken JSON): settings_config is not valid JSON"
        in (done.stdout)
    )
    assert "official login" not in done.stdout


def test_9_chat_only_providers_are_imported_with_the_bridge(home: Path) -> None:
    db = home / "cc.db"
    ccswitch_db(
        db,
        [
            (
                "c1",
                "claude",
                "Chat Gateway",
                claude_config("https://chat.example", "fake-key-2222"),
                '{"apiFormat": "openai_chat"}',
                0,
            ),
            ("x1", "codex", "Chat Codex", codex_config("https://chat.example/v1", "chat"), "{}", 0),
        ],
    )
    done = cli(home, "profile", "import-ccswitch", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "converting proxy" not in done.stdout
    for name in ("ccswitch-claude-chat-gateway", "ccswitch-codex-chat-codex"):
        assert f"note: {name}: imported with bridge = chat" in done.stdout
        shown = cli(home, "profile", "show", name).stdout
        assert 'bridge = "chat"' in shown and 'base_url = "https://chat.example/v1"' in shown
        cli(home, "key", "delete", name)


def test_18_explicit_db_that_does_not_exist_is_refused(home: Path) -> None:
    fallback = home / "home" / ".cc-switch" / "config.json"
    fallback.parent.mkdir(parents=True)
    fallback.write_text('{"claude": {"providers": {}, "current": ""}}')
    before = snapshot(home)
    done = cli(home, "profile", "import-ccswitch", "--db", "/nonexistent.db")
    assert done.returncode == 2 and "/nonexistent.db: no such file" in one_line(done)
    assert snapshot(home) == before


# --- 10, 11, 12, 18: switching files back exactly ---------------------------------------------


def test_10_off_gives_back_the_files_mode(home: Path) -> None:
    key = unique("inl")
    assert (
        cli(home, "key", "set", key, stdin="sk-inline-mode-" + pysecrets.token_hex(6)).returncode
        == 0
    )
    settings = home / "claude" / "settings.json"
    settings.write_text('{\n  "theme": "dark"\n}\n')
    settings.chmod(0o644)
    original = settings.read_bytes()
    add(home, "inl", "claude", "http://127.0.0.1:9", "--key", key, "--option", "key_mode=inline")
    add(home, "hlp", "claude", "http://127.0.0.1:9", "--key", key)
    try:
        for away in (("profile", "off", "claude"), ("profile", "use", "hlp")):
            assert cli(home, "profile", "use", "inl").returncode == 0
            assert settings.stat().st_mode & 0o777 == 0o600  # it holds the key now
            assert cli(home, *away).returncode == 0
            assert settings.stat().st_mode & 0o777 == 0o644, away
        assert cli(home, "profile", "off", "claude").returncode == 0
        assert settings.read_bytes() == original and settings.stat().st_mode & 0o777 == 0o644
    finally:
        cli(home, "key", "delete", key)


def test_11_a_removed_leftover_token_is_in_no_backup_and_comes_back_on_restore(home: Path) -> None:
    leftover = "sk-ccswitchLEFTOVER" + pysecrets.token_hex(4)
    settings = home / "claude" / "settings.json"
    settings.write_text(json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": leftover}}, indent=2) + "\n")
    original = settings.read_bytes()
    add(home, "a-claude", "claude", "http://127.0.0.1:9", "--key", "ka")
    add(home, "b-claude", "claude", "http://127.0.0.1:8", "--key", "kb")
    for name in ("a-claude", "b-claude", "a-claude"):
        assert cli(home, "profile", "use", name).returncode == 0
    assert leftover not in settings.read_text()
    for path in (home / "cfg").rglob("*"):
        if path.is_file():
            assert leftover.encode() not in path.read_bytes(), path
    first = cli(home, "profile", "backups").stdout.split()[0]
    restored = cli(home, "profile", "restore", first)
    assert restored.returncode == 0, restored.stderr
    assert settings.read_bytes() == original  # the token back, from the keyring
    assert cli(home, "profile", "use", "b-claude").returncode == 0
    assert cli(home, "profile", "off", "claude").returncode == 0
    assert settings.read_bytes() == original


def backup_ids(home: Path) -> list[tuple[str, str]]:
    """(backup id, the line) for each line of `profile backups`."""
    lines = cli(home, "profile", "backups").stdout.splitlines()
    return [(line.split()[0], line) for line in lines if line.startswith(("claude-", "codex-"))]


def codex_files(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((home / "codex").glob("*.toml"))}


def test_12_restore_puts_back_the_whole_switch(home: Path) -> None:
    add(home, "a-codex", "codex", "http://127.0.0.1:9/v1", "--model", "m-a", "--key", "ka")
    add(home, "b-codex", "codex", "http://127.0.0.1:8/v1", "--model", "m-b", "--key", "kb")
    (home / "codex" / "config.toml").write_text('# mine\napproval_policy = "never"\n')
    assert cli(home, "profile", "use", "a-codex").returncode == 0
    after_a = codex_files(home)
    assert cli(home, "profile", "use", "b-codex").returncode == 0
    after_b = codex_files(home)
    assert set(after_b) == {"config.toml", "a-codex.config.toml", "b-codex.config.toml"}
    assert cli(home, "profile", "off", "codex").returncode == 0
    assert set(codex_files(home)) == {"config.toml"}
    off_backup = next(
        i for i, line in backup_ids(home) if "config.toml " in line and "judgeaudit off" in line
    )
    done = cli(home, "profile", "restore", off_backup)
    assert done.returncode == 0, done.stderr
    assert codex_files(home) == after_b  # every file that `off` wrote, not only config.toml
    assert "* b-codex" in cli(home, "profile", "list").stdout
    use_b = next(
        i for i, line in backup_ids(home) if "config.toml " in line and "to b-codex" in line
    )
    done = cli(home, "profile", "restore", use_b)
    assert done.returncode == 0, done.stderr
    assert "removed" in done.stdout and "b-codex.config.toml" in done.stdout
    assert codex_files(home) == after_a  # b-codex's file did not exist before that switch
    assert "* a-codex" in cli(home, "profile", "list").stdout
    assert cli(home, "profile", "off", "codex").returncode == 0
    assert codex_files(home) == {"config.toml": b'# mine\napproval_policy = "never"\n'}


@pytest.mark.parametrize(
    "original",
    [b"", b"\n", b'\xef\xbb\xbf{\n  "theme": "dark"\n}\n'],
    ids=["zero-bytes", "one-newline", "utf8-bom"],
)
def test_18_blank_and_bom_settings_come_back_byte_for_byte(home: Path, original: bytes) -> None:
    settings = home / "claude" / "settings.json"
    settings.write_bytes(original)
    add(home, "a-claude", "claude", "http://127.0.0.1:9", "--model", "m-a", "--key", "ka")
    used = cli(home, "profile", "use", "a-claude")
    assert used.returncode == 0, used.stderr
    text = settings.read_bytes()
    assert json.loads(text.decode("utf-8-sig"))["env"]["ANTHROPIC_MODEL"] == "m-a"
    assert text.startswith(b"\xef\xbb\xbf") == original.startswith(b"\xef\xbb\xbf")
    assert cli(home, "profile", "off", "claude").returncode == 0
    assert settings.read_bytes() == original

"""New-user defects in switching files back and forth and in the CC Switch import, each as the
user met it through the CLI: a value edited by hand (6), the import's reasons and flags
(7, 8, 9, 18) and giving files back exactly (10, 11, 12, 18)."""

from __future__ import annotations

import json
import secrets as pysecrets
from pathlib import Path

import pytest

from tests.integration.test_profile_bad_input import snapshot
from tests.new_user_helpers import add, cli, home, one_line, unique

pytestmark = pytest.mark.usefixtures("secret_service")
__all__ = ["home"]  # the fixture, shared


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
    [b"", b"\n", b'\xef\xbb\xbf{\n  "theme": "dark"\n}\n', b"\xef\xbb\xbf", b"\xef\xbb\xbf \n"],
    ids=["zero-bytes", "one-newline", "utf8-bom", "bom-only", "bom-and-blank"],
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

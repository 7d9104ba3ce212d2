"""Issue 19 item 4: a realistic CC Switch home imported without losing or hiding anything.

The fixture is CC Switch's own SQLite layout (providers keyed by (id, app_type), settings_config
and meta as JSON text, is_current), built here: a chat-only Codex vendor stored the way CC Switch
stores its Kimi preset (wire_api = "responses", meta.apiFormat = "openai_chat"), per-provider
Claude env and Codex keys, and the plain-text copies CC Switch leaves behind.
"""

from __future__ import annotations

import json
import sqlite3
import tomllib
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.profiles import secrets
from judgeaudit.profiles.ccswitch import import_ccswitch
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import turn_off, use_profile

SCHEMA = """
CREATE TABLE providers (
    id TEXT NOT NULL, app_type TEXT NOT NULL, name TEXT NOT NULL,
    settings_config TEXT NOT NULL, website_url TEXT, category TEXT, created_at INTEGER,
    sort_index INTEGER, notes TEXT, icon TEXT, icon_color TEXT,
    meta TEXT NOT NULL DEFAULT '{}', is_current BOOLEAN NOT NULL DEFAULT 0,
    in_failover_queue BOOLEAN NOT NULL DEFAULT 0, PRIMARY KEY (id, app_type)
)"""
KIMI_CLAUDE_KEY = "fake-kimi-claude-key-1"
KIMI_CODEX_KEY = "fake-kimi-codex-key-2"
KIMI_CODEX_CONFIG = """\
model_provider = "kimi"
model = "kimi-k2-turbo"
model_reasoning_effort = "high"
disable_response_storage = true

[model_providers.kimi]
name = "Kimi"
base_url = "https://api.moonshot.cn/v1"
wire_api = "responses"
requires_openai_auth = true
request_max_retries = 4
query_params = { "api-version" = "2025-01" }

[mcp_servers.context7]
command = "npx"
"""


Provider = tuple[str, str, str, dict[str, Any], dict[str, Any], int]


def _db(path: Path, more: tuple[Provider, ...] = ()) -> None:
    claude_env = {
        "ANTHROPIC_BASE_URL": "https://api.moonshot.cn/anthropic",
        "ANTHROPIC_AUTH_TOKEN": KIMI_CLAUDE_KEY,
        "ANTHROPIC_MODEL": "kimi-k2-turbo",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL": "kimi-k2-turbo",
        "API_TIMEOUT_MS": "600000",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "32000",
    }
    rows: list[Provider] = [
        ("kimi", "claude", "Kimi", {"env": claude_env}, {}, 1),
        (
            "kimi",
            "codex",
            "Kimi",
            {"auth": {"OPENAI_API_KEY": KIMI_CODEX_KEY}, "config": KIMI_CODEX_CONFIG},
            {"apiFormat": "openai_chat"},
            1,
        ),
        *more,
    ]
    db = sqlite3.connect(path)
    db.execute(SCHEMA)
    for index, (ident, app, name, config, meta, current) in enumerate(rows):
        db.execute(
            "INSERT INTO providers (id, app_type, name, settings_config, category, created_at, "
            "sort_index, meta, is_current) VALUES (?, ?, ?, ?, 'cn_official', ?, ?, ?, ?)",
            (
                ident,
                app,
                name,
                json.dumps(config),
                1764700000 + index,
                index,
                json.dumps(meta),
                current,
            ),
        )
    db.commit()
    db.close()


@pytest.fixture
def home(isolated: ProfileStore, tmp_path: Path) -> ProfileStore:
    (tmp_path / "cc-switch" / "backups").mkdir(parents=True)
    _db(tmp_path / "cc-switch" / "cc-switch.db")
    (tmp_path / "cc-switch" / "backups" / "db_backup_20261201.db").write_bytes(b"x")
    # What CC Switch left live: the current providers with their keys.
    (tmp_path / "codex" / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": KIMI_CODEX_KEY}))
    (tmp_path / "codex" / "config.toml").write_text(KIMI_CODEX_CONFIG)
    settings = {"env": {"ANTHROPIC_AUTH_TOKEN": KIMI_CLAUDE_KEY}}
    (tmp_path / "claude" / "settings.json").write_text(json.dumps(settings))
    return isolated


def test_openai_chat_codex_row_imports_with_the_bridge_and_keeps_its_settings(
    home: ProfileStore, tmp_path: Path
) -> None:
    report = import_ccswitch(home, tmp_path / "cc-switch" / "cc-switch.db")
    assert report.imported == ["ccswitch-claude-kimi", "ccswitch-codex-kimi"]
    codex = home.get("ccswitch-codex-kimi")
    assert codex.option("bridge") == "chat"  # CC Switch converts for it; so must we
    assert codex.base_url == "https://api.moonshot.cn/v1"
    assert codex.option("config") == {
        "model_reasoning_effort": "high",
        "disable_response_storage": True,
    }
    assert codex.option("provider") == {
        "request_max_retries": 4,
        "query_params": {"api-version": "2025-01"},
    }
    assert secrets.get_key("ccswitch-codex-kimi") == KIMI_CODEX_KEY
    notes = "\n".join(report.flagged)
    # Nothing dropped silently: what is not carried is named, per provider.
    assert "ccswitch-claude-kimi: not imported from its env: API_TIMEOUT_MS, " in notes
    assert "CLAUDE_CODE_MAX_OUTPUT_TOKENS" in notes
    assert "ANTHROPIC_DEFAULT_HAIKU_MODEL" not in notes.split("not imported from its env")[1]
    assert "mcp_servers, model_providers.kimi.requires_openai_auth" in notes
    assert "bridge = chat" in notes
    assert home.get("ccswitch-claude-kimi").option("default_haiku_model") == "kimi-k2-turbo"
    # Plain-text copies: named with their paths, never with the key.
    plain = "\n".join(report.plaintext)
    for where in (
        tmp_path / "cc-switch" / "cc-switch.db",
        tmp_path / "cc-switch" / "backups",
        tmp_path / "codex" / "auth.json",
        tmp_path / "claude" / "settings.json",
    ):
        assert f"{where}:" in plain
    assert "2 provider key(s)" in plain
    assert KIMI_CLAUDE_KEY not in plain + notes and KIMI_CODEX_KEY not in plain + notes
    for path in home.user_dir.glob("*.toml"):
        assert "fake-kimi" not in path.read_text()


def test_imported_codex_settings_are_switched_in_and_given_back(
    home: ProfileStore, tmp_path: Path
) -> None:
    import_ccswitch(home, tmp_path / "cc-switch" / "cc-switch.db")
    live = tmp_path / "codex" / "config.toml"
    mine = 'approval_policy = "never"\nmodel_reasoning_effort = "low"   # mine\n'
    live.write_text(mine)
    use_profile(home, "ccswitch-codex-kimi")
    data = tomllib.loads(live.read_text())
    assert data["model_reasoning_effort"] == "high" and data["disable_response_storage"] is True
    table = data["model_providers"][data["model_provider"]]
    assert table["base_url"] == "http://127.0.0.1:8787/v1"  # through the bridge
    assert (
        table["query_params"] == {"api-version": "2025-01"} and "requires_openai_auth" not in table
    )
    turn_off(home, "codex")
    assert live.read_text() == mine


def test_a_provider_without_a_key_is_skipped_as_profile_add_refuses_it(
    home: ProfileStore, tmp_path: Path
) -> None:
    """`profile add`, `edit`, the form and `profile import FILE` refuse a profile without a key
    (no tool it is switched to could get one); `import-ccswitch` imported a provider with no key
    in CC Switch, which `profile use` then switched in without one. It is skipped with a line
    naming it, what it lacks and what to do; the other providers are imported."""
    bare_toml = (
        'model_provider = "bare"\n[model_providers.bare]\nbase_url = "https://b.example/v1"\n'
    )
    keyless: tuple[Provider, ...] = (
        ("bare", "claude", "Bare", {"env": {"ANTHROPIC_BASE_URL": "https://b.example"}}, {}, 0),
        ("bare", "codex", "Bare", {"config": bare_toml}, {}, 0),
    )
    db = tmp_path / "cc-switch" / "keyless.db"
    _db(db, keyless)
    report = import_ccswitch(home, db)
    assert report.imported == ["ccswitch-claude-kimi", "ccswitch-codex-kimi"]
    fix = (
        "a profile without a key cannot be used: give the provider its key in CC Switch and "
        "import it again, or `judgeaudit profile add {} --key NAME ...`; not imported"
    )
    assert report.skipped == [
        "ccswitch-claude-bare: CC Switch provider 'Bare': no key in its env "
        f"(ANTHROPIC_AUTH_TOKEN or ANTHROPIC_API_KEY); {fix.format('ccswitch-claude-bare')}",
        "ccswitch-codex-bare: CC Switch provider 'Bare': no key (auth.json's OPENAI_API_KEY, "
        f"experimental_bearer_token or env_key); {fix.format('ccswitch-codex-bare')}",
    ]
    assert not home.exists("ccswitch-claude-bare") and not home.exists("ccswitch-codex-bare")

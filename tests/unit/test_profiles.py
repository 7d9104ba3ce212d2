"""Profiles with an in-memory keyring: targets, the switching transaction, backups, importers."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgeaudit.profiles import active, backups, restore, secrets
from judgeaudit.profiles.ccswitch import import_ccswitch
from judgeaudit.profiles.importers import import_json_list
from judgeaudit.profiles.model import ProfileError, profile_from_dict
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import use_profile
from judgeaudit.profiles.targets import sdk

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REPO_PRESETS = Path(__file__).resolve().parents[2] / "profiles"


@pytest.fixture
def env(isolated: ProfileStore) -> ProfileStore:
    return isolated


def claude_file(tmp_path: Path) -> Path:
    return tmp_path / "claude" / "settings.json"


def add(store: ProfileStore, **data: object) -> None:
    store.save(profile_from_dict({"key": "k1", **data}, "test"))


def test_claude_merge_keeps_every_other_key_and_order(env: ProfileStore, tmp_path: Path) -> None:
    original = (FIXTURES / "claude-settings.json").read_bytes()
    claude_file(tmp_path).write_bytes(original)
    result = use_profile(env, "taotoken-claude")
    assert result.applied and result.backups
    before, after = json.loads(original), json.loads(claude_file(tmp_path).read_bytes())
    for key, value in before.items():
        if key != "env":
            assert after[key] == value, key
    assert list(after)[: len(before)] == list(before)  # order kept; ours appended
    assert (
        after["env"]["MY_TEAM_FLAG"] == "on" and after["env"]["CLAUDE_CODE_ENABLE_TELEMETRY"] == "0"
    )
    assert after["env"]["ANTHROPIC_BASE_URL"] == "https://taotoken.net/api"
    assert after["apiKeyHelper"].endswith("-m judgeaudit key print taotoken")
    assert "ANTHROPIC_AUTH_TOKEN" not in after["env"]
    assert active.here(env.state())["claude"] == "taotoken-claude"


def test_inline_key_mode_writes_0600_and_warns(env: ProfileStore, tmp_path: Path) -> None:
    claude_file(tmp_path).write_text("{}")
    os.chmod(claude_file(tmp_path), 0o644)
    secrets.set_key("k1", "sk-inline-secret-9876")
    add(
        env,
        name="inl",
        app="claude",
        base_url="http://127.0.0.1:1/v1",
        options={"key_mode": "inline"},
    )
    result = use_profile(env, "inl")
    assert any("plain text" in w for w in result.warnings)
    assert "sk-inline-secret-9876" not in result.diff and "9876" in result.diff
    assert stat.S_IMODE(claude_file(tmp_path).stat().st_mode) == 0o600
    assert (
        json.loads(claude_file(tmp_path).read_text())["env"]["ANTHROPIC_AUTH_TOKEN"]
        == "sk-inline-secret-9876"
    )
    # Back to helper mode: the inline key we wrote is removed, not left behind.
    use_profile(env, "taotoken-claude")
    assert "ANTHROPIC_AUTH_TOKEN" not in json.loads(claude_file(tmp_path).read_text())["env"]


def test_corrupt_claude_settings_refused_and_untouched(env: ProfileStore, tmp_path: Path) -> None:
    bad = b'{\n  "hooks": {,\n}\n'
    claude_file(tmp_path).write_bytes(bad)
    with pytest.raises(
        ProfileError, match=r"settings.json:2:\d+: invalid JSON .*nothing was changed"
    ):
        use_profile(env, "taotoken-claude")
    assert claude_file(tmp_path).read_bytes() == bad
    assert not backups.list_backups(env)


def test_codex_keeps_comments_tables_and_writes_responses(
    env: ProfileStore, tmp_path: Path
) -> None:
    original = (FIXTURES / "codex-config.toml").read_text()
    (tmp_path / "codex" / "config.toml").write_text(original)
    use_profile(env, "taotoken-codex")
    text = (tmp_path / "codex" / "config.toml").read_text()
    for line in original.splitlines():
        if not line.startswith("model = "):
            assert line in text, line  # every comment and unrelated line survives verbatim
    data = tomllib.loads(text)
    assert data["model_provider"] == "taotoken"
    provider = data["model_providers"]["taotoken"]
    assert (
        provider["wire_api"] == "responses"
        and provider["base_url"] == "https://taotoken.net/api/v1"
    )
    assert provider["auth"]["args"][-3:] == ["key", "print", "taotoken"]
    assert provider["auth"]["timeout_ms"] >= 10000  # headroom over Codex's 5 s default
    assert data["model_providers"]["azure-eu"]["query_params"] == {
        "api-version": "2025-04-01-preview"
    }
    assert "profile" not in data and "profiles" not in data
    per_profile = tomllib.loads((tmp_path / "codex" / "taotoken-codex.config.toml").read_text())
    assert per_profile["model_provider"] == "taotoken"


def test_codex_builtin_provider_id_refused(env: ProfileStore) -> None:
    with pytest.raises(ProfileError, match="built-in Codex provider id"):
        profile_from_dict(
            {
                "name": "x",
                "app": "codex",
                "base_url": "https://a.b/v1",
                "options": {"provider_id": "openai"},
            },
            "t",
        )


def test_corrupt_codex_config_refused(env: ProfileStore, tmp_path: Path) -> None:
    bad = b'model = "x"\n[model_providers\nname = 1\n'
    (tmp_path / "codex" / "config.toml").write_bytes(bad)
    with pytest.raises(ProfileError, match=r"config.toml:2:\d+: invalid TOML"):
        use_profile(env, "taotoken-codex")
    assert (tmp_path / "codex" / "config.toml").read_bytes() == bad


def test_symlinked_settings_written_through_link(env: ProfileStore, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "settings.json"
    real.write_text('{"model": "opus"}\n')
    os.chmod(real, 0o640)
    claude_file(tmp_path).symlink_to(real)
    use_profile(env, "taotoken-claude")
    assert claude_file(tmp_path).is_symlink()
    assert json.loads(real.read_text())["model"] == "opus"
    assert "apiKeyHelper" in json.loads(real.read_text())
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_switch_switch_back_and_restore(env: ProfileStore, tmp_path: Path) -> None:
    original = (FIXTURES / "claude-settings.json").read_bytes()
    claude_file(tmp_path).write_bytes(original)
    use_profile(env, "taotoken-claude")
    first = claude_file(tmp_path).read_bytes()
    use_profile(env, "deepseek-claude")
    second = json.loads(claude_file(tmp_path).read_bytes())
    assert second["env"]["ANTHROPIC_BASE_URL"] == "https://api.deepseek.com/anthropic"
    use_profile(env, "taotoken-claude")
    assert claude_file(tmp_path).read_bytes() == first
    oldest = backups.list_backups(env)[0]
    restore.restore(env, oldest.id)
    assert claude_file(tmp_path).read_bytes() == original


def test_file_changed_between_plan_and_write_is_replanned(
    env: ProfileStore, tmp_path: Path
) -> None:
    claude_file(tmp_path).write_text('{"model": "opus"}\n')

    def user_edits() -> None:
        claude_file(tmp_path).write_text('{"model": "opus", "userAddedMeanwhile": true}\n')

    use_profile(env, "taotoken-claude", before_write=user_edits)
    data = json.loads(claude_file(tmp_path).read_text())
    assert data["userAddedMeanwhile"] is True and "apiKeyHelper" in data


def test_dry_run_changes_nothing(env: ProfileStore, tmp_path: Path) -> None:
    claude_file(tmp_path).write_text('{"model": "opus"}\n')
    result = use_profile(env, "taotoken-claude", dry_run=True)
    assert not result.applied and '"apiKeyHelper": ' in result.diff
    assert '+{"model": "opus", "env": {"ANTHROPIC_BASE_URL"' in result.diff  # compact style kept
    assert claude_file(tmp_path).read_text() == '{"model": "opus"}\n'
    assert "claude" not in active.here(env.state())


def test_backup_retention_is_bounded(env: ProfileStore, tmp_path: Path) -> None:
    claude_file(tmp_path).write_text("{}")
    for i in range(backups.KEEP_PER_APP + 5):
        add(env, name=f"p{i}", app="claude", base_url=f"http://127.0.0.1:{1000 + i}/v1")
        use_profile(env, f"p{i}")
    assert len(backups.list_backups(env)) == backups.KEEP_PER_APP


@pytest.mark.parametrize("name", ["../etc", "a/b", "UPPER", ".hidden", "", "x" * 64, "a.b"])
def test_profile_names_are_validated(name: str) -> None:
    with pytest.raises(ProfileError, match="name"):
        profile_from_dict({"name": name, "app": "sdk", "base_url": "https://a.b"}, "t")


def test_base_url_with_tracking_query_refused() -> None:
    with pytest.raises(ProfileError, match=r"query string .*utm_"):
        profile_from_dict(
            {
                "name": "t",
                "app": "sdk",
                "base_url": "https://taotoken.net/api?utm_source=taotoken_aicg_blog_end",
            },
            "t",
        )


def test_sdk_exports_per_shell() -> None:
    profile = profile_from_dict(
        {
            "name": "t",
            "app": "sdk",
            "base_url": "https://taotoken.net/api",
            "model": "m1",
            "options": {"env_prefix": "TAOTOKEN"},
        },
        "t",
    )
    variables = sdk.variables(profile, "sk-it's-1234")
    assert variables["TAOTOKEN_BASE_URL"] == "https://taotoken.net/api"
    assert variables["OPENAI_API_KEY"] == variables["TAOTOKEN_API_KEY"] == "sk-it's-1234"
    assert "export TAOTOKEN_API_KEY='sk-it'\\''s-1234'" in sdk.exports(variables, "bash")
    assert "set -gx OPENAI_BASE_URL 'https://taotoken.net/api'" in sdk.exports(variables, "fish")
    assert "$env:TAOTOKEN_API_KEY = 'sk-it''s-1234'" in sdk.exports(variables, "powershell")


def test_import_ccswitch_db_keys_to_keyring(env: ProfileStore, tmp_path: Path) -> None:
    db_path = tmp_path / "cc-switch.db"
    db = sqlite3.connect(db_path)
    db.execute(
        "CREATE TABLE providers (id TEXT, app_type TEXT, name TEXT, settings_config TEXT, "
        "website_url TEXT, category TEXT, created_at INTEGER, sort_index INTEGER, meta TEXT, "
        "PRIMARY KEY (id, app_type))"
    )
    rows = [
        (
            "1",
            "claude",
            "TaoToken",
            json.dumps(
                {
                    "env": {
                        "ANTHROPIC_BASE_URL": "https://taotoken.net/api",
                        "ANTHROPIC_AUTH_TOKEN": "fake_cc_claude_1111",
                        "ANTHROPIC_MODEL": "claude-x",
                    }
                }
            ),
        ),
        (
            "2",
            "codex",
            "TaoToken",
            json.dumps(
                {
                    "auth": {"OPENAI_API_KEY": "fake_cc_codex_2222"},
                    "config": 'model = "gpt-x"\nmodel_provider = "tt"\n[model_providers.tt]\nname = "tt"\n'
                    'base_url = "https://taotoken.net/api"\nwire_api = "responses"\n',
                }
            ),
        ),
        ("3", "codex", "Official", json.dumps({"auth": {}, "config": ""})),
    ]
    db.executemany(
        "INSERT INTO providers (id, app_type, name, settings_config) VALUES (?, ?, ?, ?)", rows
    )
    db.commit()
    db.close()
    report = import_ccswitch(env, db_path)
    assert report.imported == ["ccswitch-claude-taotoken", "ccswitch-codex-taotoken"]
    assert len(report.skipped) == 1 and "ccswitch-codex-official" in report.skipped[0]
    assert secrets.get_key("ccswitch-claude-taotoken") == "fake_cc_claude_1111"
    for path in env.user_dir.glob("*.toml"):
        assert "fake_cc" not in path.read_text()
    assert env.get("ccswitch-codex-taotoken").model == "gpt-x"


def test_import_plain_json_list(env: ProfileStore, tmp_path: Path) -> None:
    path = tmp_path / "profiles.json"
    path.write_text(
        json.dumps(
            {
                "profiles": [
                    {
                        "name": "taotoken-claude-2",
                        "app": "claude",
                        "base_url": "https://taotoken.net/api",
                        "api_key_env": "TAOTOKEN_API_KEY",
                    },
                    {
                        "name": "tt-term",
                        "app": "terminal",
                        "base_url": "https://taotoken.net/api",
                        "api_key_env": "TAOTOKEN_API_KEY",
                    },
                    {"name": "bad", "app": "cursor", "base_url": "https://x"},
                ]
            }
        )
    )
    report = import_json_list(env, path)
    assert report.imported == ["taotoken-claude-2", "tt-term"]
    assert env.get("tt-term").app == "sdk" and env.get("tt-term").key_env == "TAOTOKEN_API_KEY"
    assert "cursor" in report.skipped[0]


def test_presets_all_load() -> None:
    store = ProfileStore(Path("/nonexistent"), REPO_PRESETS)
    names = {p.name for p in store.list()}
    assert {"taotoken-claude", "taotoken-codex", "taotoken-sdk", "local-sim"} <= names
    assert all(
        p.base_url
        == ("https://taotoken.net/api" if p.app == "claude" else "https://taotoken.net/api/v1")
        for p in store.list()
        if p.name.startswith("taotoken")
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(
    max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=10).filter(lambda k: k not in ("env", "apiKeyHelper")),
        json_values,
        max_size=6,
    )
)
def test_unknown_keys_always_survive(
    env: ProfileStore, tmp_path: Path, extra: dict[str, object]
) -> None:
    claude_file(tmp_path).write_text(json.dumps(extra))
    use_profile(env, "taotoken-claude")
    after = json.loads(claude_file(tmp_path).read_text())
    assert {k: after[k] for k in extra} == extra


@settings(
    max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(st.binary(min_size=1, max_size=40))
def test_corrupt_live_file_never_modified(env: ProfileStore, tmp_path: Path, junk: bytes) -> None:
    if not junk.removeprefix(b"\xef\xbb\xbf").strip():
        return  # an empty or blank file (a BOM too) holds no settings: treated as {}, given back
    try:
        json.loads(junk)
        return  # valid JSON is not this property's case
    except (ValueError, UnicodeDecodeError):
        pass
    claude_file(tmp_path).write_bytes(junk)
    with pytest.raises(ProfileError):
        use_profile(env, "taotoken-claude")
    assert claude_file(tmp_path).read_bytes() == junk


@settings(
    max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=10).filter(lambda k: k not in ("env", "apiKeyHelper")),
        json_values,
        max_size=5,
    ),
    st.dictionaries(
        st.from_regex(r"[A-Z][A-Z_]{0,8}", fullmatch=True), st.text(max_size=6), max_size=3
    ),
)
def test_switching_back_restores_content(
    env: ProfileStore, tmp_path: Path, extra: dict[str, object], user_env: dict[str, str]
) -> None:
    for leftover in backups.list_backups(env):  # hypothesis reuses the fixture's directory
        leftover.path.unlink()
        leftover.path.with_suffix(".json").unlink()
    env.save_state({"active": {}, "owned": {}, "created": []})
    original = json.dumps({**extra, "env": user_env}).encode()
    claude_file(tmp_path).write_bytes(original)
    use_profile(env, "taotoken-claude")
    first = claude_file(tmp_path).read_bytes()
    use_profile(env, "deepseek-claude")
    use_profile(env, "taotoken-claude")
    assert claude_file(tmp_path).read_bytes() == first
    restore.restore(env, backups.list_backups(env)[0].id)
    assert claude_file(tmp_path).read_bytes() == original


def test_a_state_from_before_gives_its_marker_to_this_environments_file(
    env: ProfileStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env.save_state(
        {"active": {"claude": "taotoken-claude", "sdk": "taotoken-sdk"}, "owned": {}, "created": []}
    )
    assert active.here(env.state()) == {"claude": "taotoken-claude", "sdk": "taotoken-sdk"}
    env.save_state(env.state())  # written back in the new layout: the file it belongs to
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc2"))
    assert active.here(env.state()) == {"sdk": "taotoken-sdk"}  # another dir: its own, none

"""Your values are yours: replaced values kept and put back, `profile off`, restore of the
ownership state, formatting kept per indentation style, leftover tokens removed and kept."""

from __future__ import annotations

import json
import time
import tomllib
from pathlib import Path

import keyring
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgeaudit.profiles import active, backups, restore, secrets
from judgeaudit.profiles.model import ProfileError, profile_from_dict
from judgeaudit.profiles.paths import codex_home
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import turn_off, use_profile
from tests.memkeyring import MemoryKeyring

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def env(isolated: ProfileStore) -> ProfileStore:
    return isolated


def settings_file(tmp_path: Path) -> Path:
    return tmp_path / "claude" / "settings.json"


def add(store: ProfileStore, **data: object) -> None:
    store.save(profile_from_dict({"key": "k1", **data}, "test"))


def test_user_model_replaced_is_kept_and_put_back(env: ProfileStore, tmp_path: Path) -> None:
    original = '{\n  "env": {\n    "ANTHROPIC_MODEL": "my-own-model"\n  }\n}\n'
    settings_file(tmp_path).write_text(original)
    add(env, name="with-model", app="claude", base_url="http://127.0.0.1:1", model="m1")
    add(env, name="no-model", app="claude", base_url="http://127.0.0.1:2")
    result = use_profile(env, "with-model")
    assert "replaces your value env.ANTHROPIC_MODEL" in result.diff
    assert '"my-own-model"' in result.diff and "kept" in result.diff
    assert json.loads(settings_file(tmp_path).read_text())["env"]["ANTHROPIC_MODEL"] == "m1"
    use_profile(env, "no-model")  # it no longer sets the model: the user's value comes back
    assert json.loads(settings_file(tmp_path).read_text())["env"]["ANTHROPIC_MODEL"] == (
        "my-own-model"
    )
    use_profile(env, "with-model")
    turn_off(env, "claude")
    assert settings_file(tmp_path).read_text() == original  # byte for byte


def test_restore_brings_back_the_ownership_state(env: ProfileStore, tmp_path: Path) -> None:
    settings_file(tmp_path).write_text('{"env": {"ANTHROPIC_MODEL": "mine"}}\n')
    add(env, name="a", app="claude", base_url="http://127.0.0.1:1", model="m-a")
    use_profile(env, "a")
    use_profile(env, "taotoken-claude")
    # Restore the file as it was while "a" was active: judgeaudit owns its keys again.
    after_a = next(b for b in backups.list_backups(env) if b.profile == "taotoken-claude")
    restore.restore(env, after_a.id)
    assert json.loads(settings_file(tmp_path).read_text())["env"]["ANTHROPIC_MODEL"] == "m-a"
    assert active.here(env.state())["claude"] == "a"
    turn_off(env, "claude")  # and still knows the user's own value behind it
    assert json.loads(settings_file(tmp_path).read_text()) == {"env": {"ANTHROPIC_MODEL": "mine"}}


def test_restore_of_the_users_own_file_forgets_ownership(env: ProfileStore, tmp_path: Path) -> None:
    settings_file(tmp_path).write_text('{"env": {"ANTHROPIC_MODEL": "mine"}}\n')
    use_profile(env, "deepseek-claude")
    restore.restore(env, backups.list_backups(env)[0].id)
    use_profile(env, "taotoken-claude")  # must not delete the restored user value
    assert (
        "replaces your value env.ANTHROPIC_MODEL"
        in use_profile(env, "deepseek-claude", dry_run=True).diff
        or json.loads(settings_file(tmp_path).read_text())["env"]["ANTHROPIC_MODEL"] == "mine"
    )
    turn_off(env, "claude")
    assert json.loads(settings_file(tmp_path).read_text()) == {"env": {"ANTHROPIC_MODEL": "mine"}}


@pytest.mark.parametrize(
    "original",
    [
        '{\n  "theme": "dark",\n  "n": 1e400,\n  "env": {\n    "A": "1"\n  }\n}\n',
        '{\n    "theme": "dark",\n    "env": {\n        "A": "1"\n    }\n}\n',
        '{\n\t"theme": "dark",\n\t"env": {\n\t\t"A": "1"\n\t}\n}',
        '{"theme":"dark","env":{"A":"1"}}',
        '{"theme": "dark"}\n',
    ],
    ids=["2-spaces", "4-spaces", "tabs-no-final-newline", "compact", "one-line-no-env"],
)
def test_formatting_kept_only_changed_keys_change(
    env: ProfileStore, tmp_path: Path, original: str
) -> None:
    settings_file(tmp_path).write_text(original)
    result = use_profile(env, "taotoken-claude")
    text = settings_file(tmp_path).read_text()
    diff = result.diff.splitlines()
    removed = [line[1:] for line in diff if line.startswith("-") and not line.startswith("---")]
    if "\n" in original.strip():
        # the only lines that change are the ones that gain a comma before an appended key
        assert all(line + "," in text for line in removed), removed
        for line in original.splitlines():
            assert line.rstrip(",") in text  # every original line is still there
    assert text.endswith("\n") == original.endswith("\n")
    assert ("1e400" in text) == ("1e400" in original)
    turn_off(env, "claude")
    assert settings_file(tmp_path).read_text() == original


def test_leftover_token_removed_kept_in_keyring_and_put_back_by_off(
    env: ProfileStore, tmp_path: Path
) -> None:
    leftover = "fake-ccswitch-leftover-token-7788"
    original = json.dumps(
        {"env": {"ANTHROPIC_AUTH_TOKEN": leftover, "ANTHROPIC_BASE_URL": "https://old.example"}},
        indent=2,
    )
    settings_file(tmp_path).write_text(original)
    result = use_profile(env, "taotoken-claude")
    assert leftover not in result.diff and "…7788" in result.diff
    assert "removes env.ANTHROPIC_AUTH_TOKEN" in result.diff
    data = json.loads(settings_file(tmp_path).read_text())
    assert "ANTHROPIC_AUTH_TOKEN" not in data["env"] and "apiKeyHelper" in data
    assert leftover not in (env.root / "state.json").read_text()
    use_profile(env, "deepseek-claude")  # still shadowing: stays removed
    assert "ANTHROPIC_AUTH_TOKEN" not in json.loads(settings_file(tmp_path).read_text())["env"]
    turn_off(env, "claude")
    assert settings_file(tmp_path).read_text() == original


def test_keep_conflicts_leaves_the_token_and_warns(env: ProfileStore, tmp_path: Path) -> None:
    settings_file(tmp_path).write_text('{"env": {"ANTHROPIC_API_KEY": "sk-users-own-1234"}}')
    result = use_profile(env, "taotoken-claude", keep_conflicts=True)
    # said plainly: the kept token goes to the new gateway, named by host
    assert any(
        "env.ANTHROPIC_API_KEY" in w
        and "sends that token to this profile's gateway (taotoken.net)" in w
        for w in result.warnings
    )
    assert json.loads(settings_file(tmp_path).read_text())["env"]["ANTHROPIC_API_KEY"]


def test_inline_key_never_in_diff_or_backups(env: ProfileStore, tmp_path: Path) -> None:
    secrets.set_key("k1", "sk-inline-canary-5511")
    settings_file(tmp_path).write_text("{}")
    add(
        env, name="inl", app="claude", base_url="http://127.0.0.1:1", options={"key_mode": "inline"}
    )
    use_profile(env, "inl")
    away = use_profile(env, "taotoken-claude")  # switching away printed the key in full
    assert "sk-inline-canary-5511" not in away.diff
    for path in (env.root / "backups").iterdir():
        assert b"sk-inline-canary-5511" not in path.read_bytes(), path
    inline_backup = next(b for b in backups.list_backups(env) if b.redacted)
    restore.restore(env, inline_backup.id)  # the key comes back from the keyring
    data = json.loads(settings_file(tmp_path).read_text())
    assert data["env"]["ANTHROPIC_AUTH_TOKEN"] == "sk-inline-canary-5511"
    assert (settings_file(tmp_path).stat().st_mode & 0o777) == 0o600


def test_nan_refused_and_big_number_kept(env: ProfileStore, tmp_path: Path) -> None:
    settings_file(tmp_path).write_text('{"a": NaN}')
    with pytest.raises(ProfileError, match=r"settings.json:1:7: invalid JSON \(NaN"):
        use_profile(env, "taotoken-claude")
    assert settings_file(tmp_path).read_text() == '{"a": NaN}'
    settings_file(tmp_path).write_text('{"a": 1e400, "b": -0.0}')
    use_profile(env, "taotoken-claude")
    assert settings_file(tmp_path).read_text().startswith('{"a": 1e400, "b": -0.0,')


def test_codex_model_not_left_stale_and_off_restores(env: ProfileStore, tmp_path: Path) -> None:
    config = tmp_path / "codex" / "config.toml"
    original = (FIXTURES / "codex-config.toml").read_text()
    config.write_text(original)
    use_profile(env, "local-sim-codex")
    assert tomllib.loads(config.read_text())["model"] == "sim-chat"
    use_profile(env, "openai-codex")  # sets no model: the user's own comes back
    assert tomllib.loads(config.read_text())["model"] == "gpt-5.2-codex"
    turn_off(env, "codex")
    assert config.read_text() == original
    assert not (tmp_path / "codex" / "openai-codex.config.toml").exists()


def test_codex_users_provider_table_refused(env: ProfileStore, tmp_path: Path) -> None:
    config = tmp_path / "codex" / "config.toml"
    mine = '[model_providers.taotoken]\nname = "mine"\nbase_url = "https://x.example/v1"\n'
    config.write_text(mine)
    with pytest.raises(ProfileError, match=r"\[model_providers.taotoken\] was not written by"):
        use_profile(env, "taotoken-codex")
    assert config.read_text() == mine


def test_shadowing_layers_warned(env: ProfileStore, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-shell-1234567")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.local.json").write_text(
        '{"env": {"ANTHROPIC_BASE_URL": "https://proj.example"}}'
    )
    (tmp_path / "managed.json").write_text('{"env": {"ANTHROPIC_AUTH_TOKEN": "sk-managed-99"}}')
    warnings = use_profile(env, "taotoken-claude", dry_run=True).warnings
    text = "\n".join(warnings)
    assert "in this terminal's environment, ANTHROPIC_API_KEY is set" in text
    assert "settings.local.json: env.ANTHROPIC_BASE_URL overrides" in text
    assert "managed.json: env.ANTHROPIC_AUTH_TOKEN is set" in text
    assert "sk-shell" not in text and "sk-managed" not in text
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "config.toml").write_text('model = "other"\nmodel_provider = "x"\n')
    # Codex reads a project's .codex/config.toml only when the project is trusted.
    untrusted = use_profile(env, "taotoken-codex", dry_run=True).warnings
    assert not any("sets model" in w for w in untrusted)
    user_config = codex_home() / "config.toml"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[projects."{tmp_path}"]\ntrust_level = "trusted"\n')
    trusted = use_profile(env, "taotoken-codex", dry_run=True).warnings
    assert any("sets model, which override" in w for w in trusted)
    # Even trusted, Codex 0.171 ignores model_provider there (tests/contract/test_project_binding)
    assert not any("model_provider" in w for w in trusted)


keys = st.sampled_from(["ANTHROPIC_MODEL", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "OTHER"])
steps = st.lists(
    st.sampled_from(["taotoken-claude", "deepseek-claude", "nomodel", "off", "restore"]),
    min_size=1,
    max_size=7,
)


@settings(
    max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(st.dictionaries(keys, st.text("abcdefgh-", min_size=1, max_size=12), max_size=4), steps)
def test_any_sequence_ends_with_the_users_values(
    env: ProfileStore, tmp_path: Path, user_env: dict[str, str], sequence: list[str]
) -> None:
    for leftover in (env.root / "backups").glob("*"):
        leftover.unlink()
    env.save_state({"active": {}, "owned": {}, "created": []})
    if not env.exists("nomodel"):
        add(env, name="nomodel", app="claude", base_url="http://127.0.0.1:3")
    original = json.dumps({"theme": "dark", "env": user_env}, indent=2) + "\n"
    settings_file(tmp_path).write_text(original)
    for step in sequence:
        if step == "off":
            turn_off(env, "claude")
        elif step == "restore":
            found = backups.list_backups(env)
            if found:
                restore.restore(env, found[len(found) // 2].id)
        else:
            use_profile(env, step)
    turn_off(env, "claude")
    final = json.loads(settings_file(tmp_path).read_text())
    assert final == json.loads(original)


@pytest.mark.parametrize(
    "original",
    [
        '{"env": {"ANTHROPIC_AUTH_TOKEN": "fake-leftover-token-0001", "OTHER": "1"}}',
        '{"env":{"ANTHROPIC_AUTH_TOKEN":"fake-leftover-token-0001","OTHER":"1"},"theme":"dark"}\n',
        '{\n  "env": {\n    "ANTHROPIC_AUTH_TOKEN": "fake-leftover-token-0001",\n    "OTHER": "1"\n  }\n}\n',
    ],
    ids=["compact-spaced", "compact-tight", "multi-line"],
)
def test_off_is_byte_identical_when_a_leftover_token_was_the_first_member(
    env: ProfileStore, tmp_path: Path, original: str
) -> None:
    settings_file(tmp_path).write_text(original)
    use_profile(env, "taotoken-claude")
    assert "fake-leftover-token-0001" not in settings_file(tmp_path).read_text()
    turn_off(env, "claude")
    assert settings_file(tmp_path).read_text() == original


def test_kept_user_values_are_forgotten_once_nothing_can_put_them_back(
    env: ProfileStore, tmp_path: Path
) -> None:
    memory = keyring.get_keyring()
    assert isinstance(memory, MemoryKeyring)

    def saved_entries() -> set[str]:
        return {user for (_svc, user) in memory.items if user.startswith("saved-")}

    rounds = backups.KEEP_PER_APP + 10
    for i in range(rounds):
        token = f"fake-hand-written-token-{i:04d}"
        path = settings_file(tmp_path)
        data = json.loads(path.read_text()) if path.exists() else {}
        data.setdefault("env", {})["ANTHROPIC_AUTH_TOKEN"] = token  # a hand edit each round
        path.write_text(json.dumps(data, indent=2) + "\n")
        use_profile(env, "taotoken-claude" if i % 2 else "deepseek-claude")
    # every kept value still reachable from the ledger or a backup is there; the rest is gone
    assert 1 <= len(saved_entries()) <= backups.KEEP_PER_APP + 1
    turn_off(env, "claude")
    final = json.loads(settings_file(tmp_path).read_text())
    assert final["env"]["ANTHROPIC_AUTH_TOKEN"] == f"fake-hand-written-token-{rounds - 1:04d}"


def test_backups_taken_across_a_second_boundary_keep_their_order(
    env: ProfileStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clock ticks over to the next second while a backup is being saved: that backup must
    still sort before the next one (else prune drops a newer switch and keeps an older one)."""
    ticks = iter([0, 0, 0, 1, 1, 1, 1, 1, 1, 1])
    real_gmtime = time.gmtime
    monkeypatch.setattr(
        "judgeaudit.profiles.backups.time.gmtime",
        lambda *_: real_gmtime(1_800_000_000 + next(ticks)),
    )
    target = settings_file(tmp_path)
    taken = [
        backups.save(env, "claude", target, f"{i}".encode(), "p", txn=f"t{i}") for i in range(3)
    ]
    assert [b.id for b in backups.list_backups(env)] == taken
    backups.prune(env, "claude", keep=2)
    assert [b.id for b in backups.list_backups(env)] == taken[1:]


def test_a_backup_after_a_prune_in_the_same_second_is_the_newest(
    env: ProfileStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Prune frees ``…-1`` while the clock still shows the same second: the next backup must not
    take that id (it would sort oldest and be pruned at once, leaving its switch no backup)."""
    real_gmtime = time.gmtime
    monkeypatch.setattr(
        "judgeaudit.profiles.backups.time.gmtime", lambda *_: real_gmtime(1_800_000_000)
    )
    target = settings_file(tmp_path)
    for i in range(3):
        backups.save(env, "claude", target, f"{i}".encode(), "p", txn=f"t{i}")
    backups.prune(env, "claude", keep=2)
    newest = backups.save(env, "claude", target, b"3", "p", txn="t3")
    backups.prune(env, "claude", keep=2)
    kept = backups.list_backups(env)
    assert [b.switch for b in kept] == ["t2", "t3"] and kept[-1].id == newest

"""Another gateway's key in ``ANTHROPIC_CUSTOM_HEADERS`` is a leftover token: a switch masks it in
the diff, keeps it out of the file and the backup (in the keyring, for ``off``), and the layers
above the user file (exec, a project binding) leave its credential lines out. A header holding
no credential stays."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from judgeaudit.profiles import backups, execenv, restore, shadowing
from judgeaudit.profiles.model import profile_from_dict
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import turn_off, use_profile
from judgeaudit.profiles.targets import claude

KEY_A = "sk-gwa-canary-headers-4821"


def settings(tmp_path: Path) -> Path:
    return tmp_path / "claude" / "settings.json"


def add_b(store: ProfileStore) -> None:
    store.save(
        profile_from_dict(
            {"name": "b", "app": "claude", "base_url": "http://127.0.0.1:18802", "key": "kb"},
            "test",
        )
    )


def test_a_key_header_is_masked_moved_out_and_put_back(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    original = (
        '{"env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:18801",'
        f'"ANTHROPIC_CUSTOM_HEADERS":"x-gateway-key: {KEY_A}","ANTHROPIC_MODEL":"sim-chat"}},'
        '"apiKeyHelper":"cat /tmp/keyA"}\n'
    )
    settings(tmp_path).write_text(original)
    add_b(isolated)
    result = use_profile(isolated, "b")
    assert KEY_A not in result.diff and "removes env.ANTHROPIC_CUSTOM_HEADERS" in result.diff
    env = json.loads(settings(tmp_path).read_text())["env"]
    assert "ANTHROPIC_CUSTOM_HEADERS" not in env  # never sent to b's gateway
    for path in (isolated.root / "backups").iterdir():
        assert KEY_A.encode() not in path.read_bytes(), path
    turn_off(isolated, "claude")
    assert settings(tmp_path).read_text() == original  # byte for byte
    kept = next(b for b in backups.list_backups(isolated) if b.redacted)
    settings(tmp_path).write_text("{}")
    restore.restore(isolated, kept.id)  # the backup's marker comes back from the keyring
    assert KEY_A in settings(tmp_path).read_text()


def test_a_header_without_a_credential_stays(isolated: ProfileStore, tmp_path: Path) -> None:
    original = '{"env": {"ANTHROPIC_CUSTOM_HEADERS": "anthropic-beta: fine-grained-tool-streaming-2025-05-14"}}'
    settings(tmp_path).write_text(original)
    add_b(isolated)
    result = use_profile(isolated, "b")
    assert "anthropic-beta" in json.loads(settings(tmp_path).read_text())["env"].get(
        "ANTHROPIC_CUSTOM_HEADERS", ""
    )
    assert "fine-grained-tool-streaming-2025-05-14" in result.diff  # shown, not masked


@pytest.mark.parametrize(
    ("value", "credential"),
    [
        ("Authorization: Bearer short1", True),  # the name says so
        ("x-gateway-key: abc", True),
        ("x-trace: a9F3kQ2mZ7pL1xR8vT4wY6uN", True),  # a key's shape under any name
        (
            "anthropic-beta: interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14",
            False,
        ),
        ("x-request-source: my-laptop", False),
    ],
)
def test_which_headers_are_credentials(value: str, credential: bool) -> None:
    assert bool(claude.credential_headers(value)) is credential


def test_keep_conflicts_says_the_header_goes_to_the_new_gateway(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    settings(tmp_path).write_text(
        json.dumps({"env": {"ANTHROPIC_CUSTOM_HEADERS": f"x-gateway-key: {KEY_A}"}})
    )
    add_b(isolated)
    result = use_profile(isolated, "b", keep_conflicts=True)
    assert any(
        "x-gateway-key header, a credential, to this profile's gateway (127.0.0.1:18802)" in w
        for w in result.warnings
    )
    assert KEY_A not in result.diff and not any(KEY_A in w for w in result.warnings)


def test_exec_and_a_binding_blank_the_headers(isolated: ProfileStore, tmp_path: Path) -> None:
    add_b(isolated)
    profile = isolated.get("b")
    launch = execenv.plan_launch(
        profile, "unused", ["claude", "-p", "hi"], {"ANTHROPIC_CUSTOM_HEADERS": f"k: {KEY_A}"},
        execenv.tool_for(["claude"], {}, "claude"),
    )  # fmt: skip
    assert launch.settings is not None
    assert launch.settings["env"]["ANTHROPIC_CUSTOM_HEADERS"] == ""  # type: ignore[index]
    assert "ANTHROPIC_CUSTOM_HEADERS" not in launch.env
    project = tmp_path / "proj"
    project.mkdir()
    use_profile(isolated, "b", project_dir=project)
    bound = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert bound["env"]["ANTHROPIC_CUSTOM_HEADERS"] == ""


def test_a_project_base_url_warning_names_the_key_and_host(
    isolated: ProfileStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_b(isolated)
    project = tmp_path / "projX"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(
        '{"env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:18899"}}'
    )
    monkeypatch.chdir(project)
    warnings = shadowing.claude_warnings(isolated.get("b"), Path(os.getcwd()))
    assert any(
        "sends profile b's key (keyring entry 'kb') to 127.0.0.1:18899" in w for w in warnings
    ), warnings
    result = use_profile(isolated, "b")  # `use` run inside the project says it too
    assert any("keyring entry 'kb'" in w and "127.0.0.1:18899" in w for w in result.warnings)


MIXED = (
    "anthropic-beta: fine-grained-tool-streaming-2025-05-14\r\n"
    f"Authorization: Bearer {KEY_A}\r\nX-Org: acme\r\nX-Team: caf\u00e9\r\n"
)


def test_only_the_credential_lines_move_and_off_gives_the_value_back(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    original = '{\n  "env": {"ANTHROPIC_CUSTOM_HEADERS": ' + json.dumps(MIXED) + "}\n}\n"
    settings(tmp_path).write_text(original)
    add_b(isolated)
    result = use_profile(isolated, "b")
    live = settings(tmp_path).read_text()
    assert KEY_A not in live and KEY_A not in result.diff
    assert json.loads(live)["env"]["ANTHROPIC_CUSTOM_HEADERS"] == (
        "anthropic-beta: fine-grained-tool-streaming-2025-05-14\r\nX-Org: acme\r\nX-Team: café\r\n"
    )
    assert '\\r\\nX-Team: caf\\u00e9\\r\\n"' in live  # the kept lines' own bytes
    assert "moves the Authorization header out of env.ANTHROPIC_CUSTOM_HEADERS" in result.diff
    for path in (isolated.root / "backups").iterdir():
        assert KEY_A.encode() not in path.read_bytes(), path
    assert not any(p.changes for p in use_profile(isolated, "b").plans)  # no drift after it
    turn_off(isolated, "claude")
    assert settings(tmp_path).read_text() == original  # byte for byte


def test_an_edit_made_while_switched_is_kept_at_off(isolated: ProfileStore, tmp_path: Path) -> None:
    settings(tmp_path).write_text(json.dumps({"env": {"ANTHROPIC_CUSTOM_HEADERS": MIXED}}))
    add_b(isolated)
    use_profile(isolated, "b")
    data = json.loads(settings(tmp_path).read_text())
    data["env"]["ANTHROPIC_CUSTOM_HEADERS"] = "X-Org: acme-2\n"  # the user's edit
    settings(tmp_path).write_text(json.dumps(data))
    result = turn_off(isolated, "claude")
    assert "keeps your edit of env.ANTHROPIC_CUSTOM_HEADERS" in result.diff
    back = json.loads(settings(tmp_path).read_text())["env"]["ANTHROPIC_CUSTOM_HEADERS"]
    assert back == f"Authorization: Bearer {KEY_A}\r\nX-Org: acme-2\n"


def test_a_backup_whose_own_json_is_faulty_is_named_not_the_live_file(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """A reviewer: a backup taken before duplicate keys were refused still holds one; restoring
    it named the live file's line, and fixing the live file as told changed nothing."""
    import pytest

    from judgeaudit.profiles.model import ProfileError

    settings(tmp_path).write_text(
        '{"env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:18801",'
        f'"ANTHROPIC_CUSTOM_HEADERS":"x-gateway-key: {KEY_A}"}},"apiKeyHelper":"cat /tmp/keyA"}}\n'
    )
    add_b(isolated)
    use_profile(isolated, "b")
    kept = next(b for b in backups.list_backups(isolated) if b.redacted)
    kept.path.write_text(
        kept.path.read_text().replace('{"env"', '{"model":"a",\n"model":"b","env"')
    )
    with pytest.raises(ProfileError) as refused:
        restore.restore(isolated, kept.id)
    assert str(refused.value).startswith(f"{kept.path}:2:1: invalid JSON (the key")


def test_a_bridged_profile_set_inline_still_warns_of_a_terminal_token(
    isolated: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: a bridged profile's tool always runs the helper whatever key_mode says, so a
    terminal token outranks it and goes to the bridge's port; key_mode inline hid the warning."""
    isolated.save(
        profile_from_dict(
            {"name": "bi", "app": "claude", "base_url": "http://127.0.0.1:18803", "key": "kb",
             "options": {"bridge": "chat", "key_mode": "inline"}},
            "test",
        )
    )  # fmt: skip
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "fake-terminal-token-" + "3" * 12)
    warnings = shadowing.claude_warnings(isolated.get("bi"))
    assert any("ANTHROPIC_AUTH_TOKEN is set" in w for w in warnings), warnings

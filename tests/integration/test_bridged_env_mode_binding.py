"""A bridged Claude profile's tool always runs the helper (its local token), whatever its
``key_mode`` says (``claude.tool_key_mode``). A review: the project binding and doctor read the
raw option, so a bridged ``key_mode = "env"`` profile was refused a binding over a token in the
user's settings.json that the binding blanks, and doctor warned of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.cli import main
from judgeaudit.profiles import secrets
from judgeaudit.profiles.model import Profile
from judgeaudit.profiles.store import ProfileStore

TOKEN = "fake-settings-token-9"


def _bridged_env_profile(store: ProfileStore, tmp_path: Path) -> Path:
    store.save(
        Profile(
            name="bre",
            app="claude",
            base_url="https://gateway.example.test/v1",
            key="gwk",
            options={"bridge": "chat", "bridge_port": "18797", "key_mode": "env"},
        )
    )
    secrets.set_key("gwk", "sk-gw-" + "5" * 20)
    user = tmp_path / "claude" / "settings.json"
    user.write_text(json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": TOKEN}}) + "\n")
    project = tmp_path / "proj"
    project.mkdir()
    return project


def test_the_binding_is_made_and_blanks_the_token(
    isolated: ProfileStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _bridged_env_profile(isolated, tmp_path)
    assert main(["profile", "use", "bre", "--project", str(project)]) == 0, capsys.readouterr()
    written = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert written["env"]["ANTHROPIC_AUTH_TOKEN"] == ""  # blanked: the helper's token is sent
    assert "apiKeyHelper" in written


def test_doctor_does_not_warn_of_a_token_set_after_the_binding(
    isolated: ProfileStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = _bridged_env_profile(isolated, tmp_path)
    user = tmp_path / "claude" / "settings.json"
    user.write_text("{}\n")
    assert main(["profile", "use", "bre", "--project", str(project)]) == 0
    user.write_text(json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": TOKEN}}) + "\n")  # after it
    capsys.readouterr()
    monkeypatch.chdir(project)
    main(["profile", "doctor"])
    shown = capsys.readouterr()
    assert "bre" in shown.out, shown  # the binding is what doctor looks at
    assert "key_mode env" not in shown.out + shown.err, shown
    assert TOKEN not in shown.out + shown.err

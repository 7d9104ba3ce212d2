"""The switch's target table: every app has one entry, every kind of file one owner, and the
answers the switch, the project binding and the preview used to spell out per app come from it."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from judgeaudit.profiles import project
from judgeaudit.profiles.model import APPS, App, ProfileError
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import turn_off
from judgeaudit.profiles.targets import FileKind
from judgeaudit.profiles.targets.registry import TARGETS, for_app, for_kind


def test_one_target_per_app_and_one_owner_per_file_kind() -> None:
    assert tuple(TARGETS) == APPS == get_args(App)
    for kind in get_args(FileKind):
        owners = [t.app for t in TARGETS.values() if kind in t.kinds]
        assert owners == [for_kind(kind).app], kind
        assert len(owners) == 1


def test_project_binding_is_answered_by_the_target(tmp_path: Path) -> None:
    assert project.settings_file("claude", tmp_path) == tmp_path / ".claude" / "settings.local.json"
    with pytest.raises(ProfileError, match="Codex ignores model_provider"):
        project.settings_file("codex", tmp_path)
    with pytest.raises(ProfileError, match="live in the environment"):
        project.settings_file("sdk", tmp_path)


def test_an_unknown_app_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEAUDIT_CONFIG_DIR", str(tmp_path / "cfg"))
    with pytest.raises(ProfileError) as refused:
        for_app("cursor")
    assert str(refused.value) == "app 'cursor': use one of claude, codex, sdk"
    with pytest.raises(ProfileError, match="use one of claude, codex, sdk"):
        turn_off(ProfileStore.default(), "cursor", dry_run=True)


def test_codex_off_plans_every_profile_file_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    home = tmp_path / "codex"
    owned = [str(home / "a.config.toml"), str(home / "config.toml"), str(tmp_path / "x.toml")]
    files = for_app("codex").files(None, owned)
    assert files == [(home / "config.toml", "codex"), (home / "a.config.toml", "codex-profile")]
    assert for_app("sdk").files(None, owned) == []

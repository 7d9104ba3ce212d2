"""Whose key a stale Claude token displaces, with no profile switched (the app's Profiles
warnings): a reviewer found it said the token replaces "the key of your user settings (its
apiKeyHelper)" where no settings file, so no helper, existed. It names the helper only when one
is set; `profile doctor` says the same sentence (one owner, ``shadowing.token_said``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.profiles import shadowing
from judgeaudit.profiles.paths import claude_settings
from judgeaudit.profiles.store import ProfileStore

TOKEN = "sk-ant-oat01-" + "Z" * 20 + "WXYZ"


def _token_line(cwd: Path) -> str:
    (line,) = [w for w in shadowing.claude_warnings(None, cwd) if "ANTHROPIC_AUTH_TOKEN" in w]
    return line


def test_with_no_helper_the_token_displaces_claude_codes_own_key(
    isolated: ProfileStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", TOKEN)
    line = _token_line(tmp_path)
    assert line.endswith(
        "as the bearer token instead of the key Claude Code would use otherwise (its login; no "
        "apiKeyHelper is set) (unset it)"
    ), line
    assert TOKEN not in line and "(…WXYZ)" in line


def test_with_a_helper_in_the_user_settings_it_displaces_that(
    isolated: ProfileStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = claude_settings()
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"apiKeyHelper": "echo k"}), encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", TOKEN)
    line = _token_line(tmp_path)
    assert line.endswith(
        "as the bearer token instead of the key of your user settings (its apiKeyHelper) (unset it)"
    ), line

"""A new user of the switching half: the switch preview named `~/.claude/settings.json` as
`.claude/settings.json` when run in `~` and whole (`/home/me/.claude/settings.json`) anywhere
else. It names a file under the home folder as `~/…` wherever it runs, in the CLI's preview and
the app's (both render through `profiles/diffview.py`, which asks `paths.shown`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.profiles.diffview import render_diff, render_notes
from judgeaudit.profiles.targets import FilePlan
from tests.new_user_helpers import add, cli, home

__all__ = ["home"]  # the fixture, shared


def test_the_preview_names_files_under_home_with_a_tilde(home: Path) -> None:
    add(home, "c", "claude", "https://gw.example.com/api", "--key-env", "GW_KEY")
    add(home, "x", "codex", "https://gw.example.com/v1", "--key-env", "GW_KEY")
    tools_in_home = {"CLAUDE_CONFIG_DIR": "", "CODEX_HOME": ""}  # unset: ~/.claude, ~/.codex
    headers = []
    for name in ("c", "x"):
        done = cli(home, "profile", "use", name, "--dry-run", env=tools_in_home)
        assert done.returncode == 0, done.stderr
        headers += [line for line in done.stdout.splitlines() if line.startswith("+++ ")]
    assert headers == [
        "+++ ~/.claude/settings.json",
        "+++ ~/.codex/config.toml",
        "+++ ~/.codex/x.config.toml",
    ]


def test_the_apps_preview_and_notes_say_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    plans = [
        FilePlan(tmp_path / "me/.claude/settings.json", None, b"{}\n", kind="claude", notes=["a"]),
        FilePlan(elsewhere / "cfg/settings.json", b"{}\n", b"{ }\n", kind="claude", notes=["b"]),
        FilePlan(tmp_path / "other/config.toml", b"a = 1\n", b"a = 2\n", kind="codex"),
    ]
    heads = [x for x in render_diff(plans).splitlines() if x.startswith(("--- ", "+++ "))]
    assert heads == [
        "--- /dev/null",
        "+++ ~/.claude/settings.json",
        "--- cfg/settings.json",  # under the working directory: relative to it, as git does
        "+++ cfg/settings.json",
        f"--- {tmp_path / 'other/config.toml'}",
        f"+++ {tmp_path / 'other/config.toml'}",
    ]
    assert render_notes(plans) == ["~/.claude/settings.json: a", "cfg/settings.json: b"]

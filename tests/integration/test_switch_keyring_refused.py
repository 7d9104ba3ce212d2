"""A new user switched a keyring profile in with no usable keyring: the switch printed a long
warning ("Claude Code would get no key"), wrote settings.json and exited 0, so the failure only
showed at Claude Code's next start, while ``key set``/``env`` refused for the same cause. Now the
switch refuses in one line, exit 2, and writes nothing; its preview (``--dry-run`` or ``diff``)
shows the diff with the reason and exits 2 as the switch will; a profile that reads
no keyring entry at run time (``key_env``) still switches."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.new_user_helpers import cli, home, one_line

__all__ = ["home"]  # the fixture, shared

PLAIN = {"PYTHON_KEYRING_BACKEND": "keyrings.alt.file.PlaintextKeyring"}


def profile(home: Path, name: str, app: str, key_line: str) -> None:
    folder = home / "cfg" / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    base = "https://gw.example/api" if app == "claude" else "https://gw.example/v1"
    (folder / f"{name}.toml").write_text(
        f'name = "{name}"\napp = "{app}"\nbase_url = "{base}"\n{key_line}\n'
    )


@pytest.mark.parametrize(
    ("app", "live", "tool"),
    [
        ("claude", Path("claude") / "settings.json", "Claude Code"),
        ("codex", Path("codex") / "config.toml", "Codex"),
    ],
)
def test_no_usable_keyring_refuses_and_writes_nothing(
    home: Path, app: str, live: Path, tool: str
) -> None:
    profile(home, "gw", app, 'key = "gwkey"')
    target = home / live
    before = target.read_bytes() if target.exists() else None
    preview = cli(home, "profile", "use", "gw", "--dry-run", env=PLAIN)
    assert preview.returncode == 2  # as the switch will: a script's pre-check read 0 (a new user)
    assert "gw.example" in preview.stdout  # the diff is still shown
    assert f"{tool} would get no key, so `profile use` refuses this switch" in preview.stderr
    done = cli(home, "profile", "use", "gw", env=PLAIN)
    assert done.returncode == 2, done.stdout + done.stderr
    line = one_line(done)
    assert "is not an encrypted one" in line
    assert line.endswith(
        f"; nothing was changed: {tool} would run `judgeaudit key print gwkey` on every "
        "start and get no key"
    )
    assert (target.read_bytes() if target.exists() else None) == before
    assert "* gw " not in cli(home, "profile", "list", env=PLAIN).stdout  # not made active


def test_a_key_env_profile_still_switches_without_a_keyring(home: Path) -> None:
    profile(home, "gwenv", "codex", 'key_env = "GW_KEY"')
    done = cli(home, "profile", "use", "gwenv", env={**PLAIN, "GW_KEY": "x"})
    assert done.returncode == 0, done.stderr
    assert "gwenv" in (home / "codex" / "config.toml").read_text()


def test_a_bridged_profiles_preview_exits_as_its_switch_will(home: Path) -> None:
    """A bridged profile's switch refuses with no usable keyring (its local token lives
    there), but its preview skipped that check: `--dry-run` exited 0 and the app offered `y`
    (a review)."""
    profile(home, "gwb", "codex", 'key_env = "GW_KEY"\n[options]\nbridge = "chat"')
    preview = cli(home, "profile", "use", "gwb", "--dry-run", env={**PLAIN, "GW_KEY": "x"})
    assert preview.returncode == 2, preview.stdout + preview.stderr
    assert "the bridge's local token of profile 'gwb' lives there" in preview.stderr
    done = cli(home, "profile", "use", "gwb", env={**PLAIN, "GW_KEY": "x"})
    assert done.returncode == 2 and "nothing was changed" in one_line(done)

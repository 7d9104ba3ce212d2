"""A new user put profiles in the folder the docs name for Linux while ``XDG_CONFIG_HOME`` (or
``JUDGEAUDIT_CONFIG_DIR``) pointed elsewhere: "profile 'x' not found" never said where it had
looked, nor did ``profile list``. Both now name the folder and the variable that sets it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.new_user_helpers import cli, home, one_line

pytestmark = pytest.mark.usefixtures("secret_service")
__all__ = ["home"]  # the fixture, shared


def test_not_found_names_the_folder_it_searched(home: Path) -> None:
    folder = home / "cfg" / "profiles"
    done = cli(home, "profile", "use", "mine")
    assert done.returncode == 2
    assert one_line(done) == (
        f"judgeaudit: profile 'mine' not found in {folder} (nor among the presets); "
        "`judgeaudit profile list` shows them ($JUDGEAUDIT_CONFIG_DIR sets that folder)"
    )


def test_profile_list_names_the_folder_a_new_file_goes_in(home: Path) -> None:
    folder = home / "cfg" / "profiles"
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text(
        'name = "mine"\napp = "sdk"\nbase_url = "https://gw.example/v1"\nkey_env = "GW_KEY"\n'
    )
    listed = cli(home, "profile", "list")
    assert listed.returncode == 0, listed.stderr
    assert " mine " in listed.stdout
    assert listed.stdout.splitlines()[-1] == (
        f"your profiles: {folder} ($JUDGEAUDIT_CONFIG_DIR sets that folder)"
    )


@pytest.mark.skipif(sys.platform != "linux", reason="XDG_CONFIG_HOME is Linux's")
def test_xdg_config_home_moves_the_folder_and_the_lines_name_it(home: Path) -> None:
    """The new user's case: no JUDGEAUDIT_CONFIG_DIR, XDG_CONFIG_HOME set elsewhere."""
    env = {"JUDGEAUDIT_CONFIG_DIR": ""}  # empty: the platform's folder, as when unset
    folder = home / "home" / ".config" / "judgeaudit" / "profiles"
    missing = cli(home, "profile", "use", "mine", env=env)
    assert missing.returncode == 2 and f"not found in {folder} (nor among" in one_line(missing)
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text(
        'name = "mine"\napp = "sdk"\nbase_url = "https://gw.example/v1"\nkey_env = "GW_KEY"\n'
    )
    listed = cli(home, "profile", "list", env=env)
    assert " mine " in listed.stdout
    assert listed.stdout.splitlines()[-1].startswith(f"your profiles: {folder} (")

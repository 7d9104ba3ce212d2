"""`profile restore` of a backup byte-identical to the live file printed "restored" and had
done nothing (no file written, no backup taken; a new user). It says the file already equals
that backup and that nothing was changed, exit 0; a file put back by hand leaves only
judgeaudit's record of the switch to set back, and it says that instead."""

from __future__ import annotations

import json
from pathlib import Path

from tests.new_user_helpers import add, cli, home

__all__ = ["home"]  # the fixture, shared

MINE = '{"theme": "dark"}\n'
KEY = {"B_KEY": "k-" + "5" * 20}


def backup_ids(home: Path) -> list[str]:
    listed = cli(home, "profile", "backups")
    assert listed.returncode == 0, listed.stderr
    return [line.split()[0] for line in listed.stdout.splitlines() if line.startswith("claude-")]


def switched(home: Path) -> tuple[Path, str]:
    settings = home / "claude" / "settings.json"
    settings.write_text(MINE)
    add(home, "b", "claude", "https://gw.example/api", "--key-env", "B_KEY")
    assert cli(home, "profile", "use", "b", env=KEY).returncode == 0
    (first,) = backup_ids(home)
    return settings, first


def test_restoring_a_backup_the_file_already_equals_says_nothing_changed(home: Path) -> None:
    settings, first = switched(home)
    assert cli(home, "profile", "restore", first).stdout.startswith("restored ")
    kept = backup_ids(home)
    stamp = settings.stat().st_mtime_ns
    again = cli(home, "profile", "restore", first)
    assert again.returncode == 0, again.stderr
    assert again.stdout == (
        f"{settings} already equals its backup ({first}): nothing was changed\n"
    )
    assert backup_ids(home) == kept and settings.read_text() == MINE
    assert settings.stat().st_mtime_ns == stamp  # not rewritten


def test_a_file_put_back_by_hand_gets_its_record_set_back_and_says_so(home: Path) -> None:
    settings, first = switched(home)
    settings.write_text(MINE)  # the user's own undo
    assert "* b" in cli(home, "profile", "list").stdout
    done = cli(home, "profile", "restore", first)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"{settings} already equals its backup ({first}): the file was not written; "
        "judgeaudit's record of which profile is active there was set back to that switch's\n"
    )
    assert "* b" not in cli(home, "profile", "list").stdout
    assert json.loads(settings.read_text()) == {"theme": "dark"} and backup_ids(home) == [first]

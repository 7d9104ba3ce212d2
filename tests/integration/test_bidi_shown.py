"""A bidi control in a user's settings value (Trojan Source: U+202E reverses what follows it on
screen) was printed raw by the switch diff and its notes, `profile doctor`, the warnings,
`profile show` and the backups list: the value read as another one. Each escapes it as
``\\u202e`` (as JSON writes it) so the user sees it and can find it; the file keeps it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.new_user_helpers import add, cli, home

__all__ = ["home"]  # the fixture, shared

RLO = "\u202e"
SHOWN = "\\u202e"
GATEWAY = "https://gw.example/api"
#: the user's own values: a URL that reads "https://moc.evil..." backwards, and a note
SETTINGS = {
    "env": {"ANTHROPIC_BASE_URL": f"https://a{RLO}lper.example", "NOTE": f"abc{RLO}def"},
    "model": f"x{RLO}y",
}


def test_the_switch_diff_its_notes_and_warnings_escape_a_bidi_control(home: Path) -> None:
    settings = home / "claude" / "settings.json"
    settings.write_text(json.dumps(SETTINGS, ensure_ascii=False, indent=2) + "\n")
    managed = {"env": {"ANTHROPIC_BASE_URL": f"https://m{RLO}.example"}}
    (home / "managed.json").write_text(json.dumps(managed, ensure_ascii=False))
    add(home, "b", "claude", GATEWAY, "--key-env", "B_KEY")
    done = cli(home, "profile", "use", "b", "--dry-run", env={"B_KEY": "k-" + "4" * 20})
    assert done.returncode == 0, done.stderr
    for stream in (done.stdout, done.stderr):
        assert RLO not in stream, stream
    assert f'"NOTE": "abc{SHOWN}def"' in done.stdout  # the diff line
    assert f'replaces your value env.ANTHROPIC_BASE_URL = "https://a{SHOWN}lper' in done.stdout
    assert f"m{SHOWN}.example" in done.stderr  # the managed file's warning
    doctor = cli(home, "profile", "doctor", "claude")
    assert RLO not in doctor.stdout and f"x{SHOWN}y" in doctor.stdout
    assert json.loads(settings.read_text()) == SETTINGS  # shown escaped, never rewritten


def test_profile_show_and_the_backups_list_escape_a_bidi_control(home: Path) -> None:
    add(home, "b", "claude", GATEWAY, "--key-env", "B_KEY")
    path = home / "cfg" / "profiles" / "b.toml"
    path.write_text(
        path.read_text().replace('app = "claude"', f'app = "claude"\ndescription = "d{RLO}e"')
    )
    shown = cli(home, "profile", "show", "b")
    assert shown.returncode == 0, shown.stderr
    assert RLO not in shown.stdout and f"d{SHOWN}e" in shown.stdout
    odd = home / f"claude{RLO}dir"  # a config folder whose name holds one
    odd.mkdir()
    (odd / "settings.json").write_text("{}\n")
    env = {"B_KEY": "k-" + "4" * 20, "CLAUDE_CONFIG_DIR": str(odd)}
    assert cli(home, "profile", "use", "b", env=env).returncode == 0
    listed = cli(home, "profile", "backups", env=env)
    assert listed.returncode == 0, listed.stderr
    assert RLO not in listed.stdout and f"claude{SHOWN}dir" in listed.stdout
    backup_id = listed.stdout.split()[0]
    restored = cli(home, "profile", "restore", backup_id, env=env)
    assert restored.returncode == 0, restored.stderr
    assert RLO not in restored.stdout and f"claude{SHOWN}dir" in restored.stdout

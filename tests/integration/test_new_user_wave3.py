"""New-user trial (wave 3, lane w12-prof): sentences the CLI builds from a user's file or a
backup's label read as sentences (a Codex note says the user's line once; `profile backups` says
what each backup was taken before: a switch, `profile off`, a restore), and a rejected key names
where it came from."""

from __future__ import annotations

import json
from pathlib import Path

from tests.audit_helpers import write_spec
from tests.helpers import sim_server
from tests.new_user_helpers import add, cli, home, one_line

__all__ = ["home"]  # the fixture, shared


def test_codex_note_names_the_users_line_once(home: Path) -> None:
    (home / "codex" / "config.toml").write_text('model = "o3"   # my model\n')
    add(home, "cx", "codex", "https://gw.example.com/v1", "--key", "gw", "--model", "gpt-x")
    done = cli(home, "profile", "diff", "cx")
    assert done.returncode == 0, done.stderr
    assert 'note: replaces your value model = "o3"   # my model, kept' in done.stdout
    assert "model = model" not in done.stdout


def test_backups_say_what_each_was_taken_before(home: Path) -> None:
    (home / "codex" / "config.toml").write_text('approval_policy = "never"\n')
    add(home, "cx", "codex", "https://gw.example.com/v1", "--key", "gw", "--model", "gpt-x")
    assert cli(home, "profile", "use", "cx").returncode == 0
    assert cli(home, "profile", "off", "codex").returncode == 0
    listed = cli(home, "profile", "backups").stdout
    off = next(line.split()[0] for line in listed.splitlines() if "judgeaudit off" in line)
    assert cli(home, "profile", "restore", off).returncode == 0
    lines = cli(home, "profile", "backups").stdout.splitlines()
    config = [line for line in lines if "config.toml " in line and "cx.config" not in line]
    said = sorted(line.rsplit("  (", 1)[1] for line in config)
    assert said == sorted(
        ["before switching to cx)", "before turning judgeaudit off)", f"before restoring {off})"]
    ), lines
    assert not any("switching to judgeaudit off" in line for line in lines)
    assert not any("switching to before" in line for line in lines)


def test_the_apps_backup_preview_says_the_same(tmp_path: Path) -> None:
    from judgeaudit.profiles import backups
    from judgeaudit.tui.screens.backups_dialog import preview

    made = tmp_path / "b.bak"
    made.write_text("{}\n")
    off = backups.Backup("claude-1-1", "claude", "/x/settings.json", "judgeaudit off", "t", made)
    assert "before turning judgeaudit off\n" in preview(off, [off], 8).plain


def test_a_run_whose_profile_key_is_rejected_names_the_profiles_variable(home: Path) -> None:
    with sim_server("--require-key-env", "GOOD", env={"GOOD": "good-key-1234"}) as url:
        add(home, "gw", "sdk", url, "--key-env", "W12_KEY")
        spec = write_spec(home / "spec.toml")
        spec.write_text(spec.read_text().replace('base_url = "embedded"', 'profile = "gw"'))
        done = cli(home, "run", str(spec), "--out", str(home / "out"), env={"W12_KEY": "bad-9876"})
    assert done.returncode == 2, done.stderr
    assert "rejected the API key (HTTP 401); put the right one in $W12_KEY" in done.stderr
    assert "9876" not in done.stdout + done.stderr


def test_import_names_the_files_own_field_and_fails_when_nothing_was_imported(home: Path) -> None:
    bad = {"name": "x1", "app": "sdk", "base_url": "https://gw.example.com/v1", "api_key_env": 5}
    (home / "bad.json").write_text(json.dumps({"profiles": [bad]}))
    done = cli(home, "profile", "import", str(home / "bad.json"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "bad.json: profiles[0]: api_key_env: a number, not text" in done.stdout
    assert "key_env: must be" not in done.stdout and ": key_env:" not in done.stdout
    assert "nothing imported" in one_line(done)
    assert not (home / "cfg" / "profiles").exists() or not any(
        (home / "cfg" / "profiles").iterdir()
    )
    good = {**bad, "name": "x2", "api_key_env": "GW_KEY"}
    (home / "mixed.json").write_text(json.dumps({"profiles": [bad, good]}))
    mixed = cli(home, "profile", "import", str(home / "mixed.json"))
    assert mixed.returncode == 0, mixed.stderr  # some imported: the skipped lines say the rest
    assert "imported x2" in mixed.stdout and "1 imported, 1 skipped" in mixed.stdout

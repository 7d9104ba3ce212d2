"""New-user trial (wave 3, lane w12-prof): sentences the CLI builds from a user's file or a
backup's label read as sentences (a Codex note says the user's line once; `profile backups` says
what each backup was taken before: a switch, `profile off`, a restore), and a rejected key names
where it came from."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.audit_helpers import write_spec
from tests.helpers import sim_server
from tests.new_user_helpers import KEYRING_OK, add, cli, home, one_line

__all__ = ["home"]  # the fixture, shared


def test_codex_note_names_the_users_line_once(home: Path) -> None:
    (home / "codex" / "config.toml").write_text('model = "o3"   # my model\n')
    add(home, "cx", "codex", "https://gw.example.com/v1", "--key", "gw", "--model", "gpt-x")
    done = cli(home, "profile", "diff", "cx", env=KEYRING_OK)
    assert done.returncode == 0, done.stderr
    assert 'note: replaces your value model = "o3"   # my model, kept' in done.stdout
    assert "model = model" not in done.stdout


def test_backups_say_what_each_was_taken_before(home: Path) -> None:
    (home / "codex" / "config.toml").write_text('approval_policy = "never"\n')
    add(home, "cx", "codex", "https://gw.example.com/v1", "--key", "gw", "--model", "gpt-x")
    assert cli(home, "profile", "use", "cx", env=KEYRING_OK).returncode == 0
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


NO_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}


def test_codex_profile_with_key_env_alone_switches_and_execs_reading_the_variable(
    home: Path,
) -> None:
    """`profile add --key-env VAR` (no --key) is enough, as the docs say: Codex reads VAR
    (`env_key`), with no keyring on the machine at all."""
    done = cli(home, "profile", "add", "cx", "--app", "codex", "--base-url",
               "https://gw.example.com/v1", "--key-env", "GW_KEY", env=NO_KEYRING)  # fmt: skip
    assert done.returncode == 0, done.stderr
    used = cli(home, "profile", "use", "cx", env=NO_KEYRING)
    assert used.returncode == 0, used.stderr
    assert 'env_key = "GW_KEY"' in (home / "codex" / "config.toml").read_text()
    fake = home / "work" / "codex"  # what exec hands Codex: its argv and the variable
    fake.write_text('#!/bin/sh\necho "ARGS $*"\necho "KEY=$GW_KEY"\n')
    fake.chmod(0o755)
    ran = cli(
        home, "exec", "cx", "--", str(fake), "exec", "hi", env={**NO_KEYRING, "GW_KEY": "k-1"}
    )
    assert ran.returncode == 0, ran.stderr
    assert 'env_key = "GW_KEY"' in ran.stdout and "KEY=k-1" in ran.stdout


def test_exec_of_a_profile_it_cannot_run_is_exit_2_with_the_fix(home: Path) -> None:
    """A hand-written profile asking for Codex's keyring command without a keyring entry: `use`
    and `exec` refuse in one line naming both fixes, exit 2 (not 126, "not executable")."""
    (home / "cfg" / "profiles").mkdir(parents=True)
    (home / "cfg" / "profiles" / "cx.toml").write_text(
        'name = "cx"\napp = "codex"\nbase_url = "https://gw.example.com/v1"\n'
        'key_env = "GW_KEY"\n[options]\nkey_mode = "command"\n'
    )
    fake = home / "work" / "codex"
    fake.write_text("#!/bin/sh\necho ran\n")
    fake.chmod(0o755)
    for args in (("profile", "use", "cx"), ("exec", "cx", "--", str(fake))):
        done = cli(home, *args, env={**NO_KEYRING, "GW_KEY": "k-1"})
        assert done.returncode == 2, (args, done.returncode, done.stderr)
        line = one_line(done)
        assert "key_mode=env_key" in line and "--key NAME" in line, line
        assert "ran" not in done.stdout
    refused = cli(home, "profile", "add", "cy", "--app", "codex", "--base-url",
                  "https://gw.example.com/v1", "--key-env", "GW_KEY", "--option",
                  "key_mode=command", env=NO_KEYRING)  # fmt: skip
    assert refused.returncode == 2 and "nothing was saved" in one_line(refused)
    assert not (home / "cfg" / "profiles" / "cy.toml").exists()


def test_claude_profile_with_key_env_alone_gets_its_key_from_the_variable(home: Path) -> None:
    """Claude Code's apiKeyHelper prints the profile's variable (never the key into the file);
    unset, it says so in one line, and the switch's preview warns first."""
    done = cli(home, "profile", "add", "cl", "--app", "claude", "--base-url",
               "https://gw.example.com", "--key-env", "GW_KEY", env=NO_KEYRING)  # fmt: skip
    assert done.returncode == 0, done.stderr
    used = cli(home, "profile", "use", "cl", env=NO_KEYRING)
    assert used.returncode == 0, used.stderr
    assert "apiKeyHelper prints $GW_KEY, which is not set in this terminal" in used.stderr
    settings = json.loads((home / "claude" / "settings.json").read_text())
    helper = settings["apiKeyHelper"]
    assert "k-1" not in json.dumps(settings)
    base = {k: v for k, v in os.environ.items() if k != "GW_KEY"}
    ok = subprocess.run(["sh", "-c", helper], env={**base, "GW_KEY": "k-1"}, capture_output=True,
                        text=True, timeout=60)  # fmt: skip
    assert (ok.returncode, ok.stdout) == (0, "k-1"), ok.stderr
    unset = subprocess.run(["sh", "-c", helper], env=base, capture_output=True, text=True,
                           timeout=60)  # fmt: skip
    assert unset.returncode != 0 and unset.stdout == ""
    assert unset.stderr.strip() == "GW_KEY is not set; export it, then start the tool"

"""New-user trial, eighteenth session: the active marker belongs to the live file it was written
to, an edit of the active profile says how to apply it, and a key an active profile reads is
not deleted behind its back (nor one a project binding reads). Through the CLI, with the real Secret Service keyring."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from judgeaudit.profiles.drift import DRIFT_MARK
from tests.cli_helpers import cli as run_cli
from tests.cli_helpers import world_env
from tests.new_user_helpers import add, cli, home, one_line, unique

pytestmark = pytest.mark.usefixtures("secret_service")
__all__ = ["home"]  # the fixture, shared


def _marked(listing: str) -> list[str]:
    return re.findall(r"^ \* (\S+)", listing, flags=re.M)


def _base(settings: Path) -> str:
    return str(json.loads(settings.read_text())["env"]["ANTHROPIC_BASE_URL"])


def test_editing_the_active_profile_says_it_is_not_applied_until_use(home: Path) -> None:
    add(home, "a-claude", "claude", "http://127.0.0.1:18801", "--key", "gwa")
    assert cli(home, "profile", "use", "a-claude").returncode == 0
    edited = cli(home, "profile", "edit", "a-claude", "--base-url", "http://127.0.0.1:18802")
    assert edited.returncode == 0
    assert "`judgeaudit profile use a-claude` applies the change" in edited.stdout
    assert _base(home / "claude" / "settings.json") == "http://127.0.0.1:18801"  # not applied
    listing = cli(home, "profile", "list").stdout
    assert _marked(listing) == ["a-claude"] and DRIFT_MARK in listing
    doctor = cli(home, "profile", "doctor", "claude").stdout
    assert "no longer holds what a-claude writes" in doctor
    assert cli(home, "profile", "use", "a-claude").returncode == 0
    assert DRIFT_MARK not in cli(home, "profile", "list").stdout
    assert "no longer holds" not in cli(home, "profile", "doctor", "claude").stdout
    quiet = cli(home, "profile", "edit", "a-claude", "--model", "m")  # applied: note again
    assert "profile use a-claude" in quiet.stdout


def test_each_claude_config_dir_has_its_own_active_profile(home: Path) -> None:
    other = {"CLAUDE_CONFIG_DIR": str(home / "cc2")}
    (home / "cc2").mkdir()
    add(home, "a-claude", "claude", "http://127.0.0.1:18801", "--key", "gwa")
    add(home, "b-claude", "claude", "http://127.0.0.1:18802", "--key", "gwb")
    assert cli(home, "profile", "use", "a-claude").returncode == 0
    assert cli(home, "profile", "use", "b-claude", env=other).returncode == 0
    assert _marked(cli(home, "profile", "list").stdout) == ["a-claude"]
    assert _marked(cli(home, "profile", "list", env=other).stdout) == ["b-claude"]
    doctor = cli(home, "profile", "doctor", "claude").stdout
    assert "base URL  http://127.0.0.1:18801" in doctor
    assert "judgeaudit profile in the user file: a-claude" in doctor
    assert cli(home, "profile", "off", "claude", env=other).returncode == 0
    assert _marked(cli(home, "profile", "list").stdout) == ["a-claude"]
    assert _marked(cli(home, "profile", "list", env=other).stdout) == []
    assert _base(home / "claude" / "settings.json") == "http://127.0.0.1:18801"


def test_deleting_the_key_of_the_active_profile_needs_force(home: Path) -> None:
    key = unique("gwd")
    assert cli(home, "key", "set", key, stdin="sk-test-" + key).returncode == 0
    add(home, "k-claude", "claude", "https://gw.example", "--key", key)
    assert cli(home, "profile", "use", "k-claude").returncode == 0
    refused = cli(home, "key", "delete", key)
    assert refused.returncode != 0
    line = one_line(refused)
    assert "k-claude is active for claude" in line and "nothing was deleted" in line
    assert "switch another profile in (or `judgeaudit profile off claude`) first" in line
    assert cli(home, "key", "print", key).stdout.strip() == "sk-test-" + key
    forced = cli(home, "key", "delete", key, "--force")
    assert forced.returncode == 0 and "k-claude is active for claude" in forced.stderr
    doctor = cli(home, "profile", "doctor", "claude").stdout
    assert f"key {key} (profile k-claude's) is missing from the keyring" in doctor


def test_a_key_active_under_another_claude_config_dir_is_refused_too(home: Path) -> None:
    """A review: only this environment's marker was asked, so a plain `key delete` deleted the
    key a profile active in another CLAUDE_CONFIG_DIR reads on every request."""
    key = unique("gwf")
    assert cli(home, "key", "set", key, stdin="sk-test-" + key).returncode == 0
    add(home, "pc", "claude", "https://gw.example", "--key", key)
    other = home / "alt"
    other.mkdir()
    assert cli(home, "profile", "use", "pc", env={"CLAUDE_CONFIG_DIR": str(other)}).returncode == 0
    refused = cli(home, "key", "delete", key)
    assert refused.returncode != 0
    line = one_line(refused)
    assert "pc is active for claude" in line and str(other / "settings.json") in line, line
    assert cli(home, "key", "print", key).stdout.strip() == "sk-test-" + key


def test_a_key_a_project_binding_reads_is_refused_too(home: Path) -> None:
    """A review (nineteenth session): the project bindings of state.json were not asked, so a
    plain `key delete` deleted the key `profile use P --project DIR` had Claude Code read there."""
    key = unique("gwp")
    assert cli(home, "key", "set", key, stdin="sk-test-" + key).returncode == 0
    add(home, "pp", "claude", "https://gw.example", "--key", key)
    project = home / "work" / "proj"
    project.mkdir()
    assert cli(home, "profile", "use", "pp", "--project", "proj").returncode == 0
    refused = cli(home, "key", "delete", key)
    assert refused.returncode == 2
    line = one_line(refused)
    settings = project / ".claude" / "settings.local.json"
    assert f"pp is bound to {project} for claude ({settings})" in line, line
    assert f"`judgeaudit profile off claude --project {project}`" in line
    # Only what helps a binding: the global "switch another profile in" does not (twentieth).
    assert line.endswith("or the key is set again; give --force; nothing was deleted"), line
    assert cli(home, "key", "print", key).stdout.strip() == "sk-test-" + key
    assert cli(home, "profile", "off", "claude", "--project", "proj").returncode == 0
    done = cli(home, "key", "delete", key)
    assert done.returncode == 0 and "profiles using it: pp" in done.stderr


def test_a_key_mode_that_reads_no_keyring_entry_does_not_block_its_deletion(home: Path) -> None:
    """key_users asked only which profile names the entry, not whether its key mode reads it:
    a ``key_mode = "env"`` binding sends the shell's token (no apiKeyHelper in its file) and a
    Codex ``env_key`` switch has Codex read a variable, so deleting the entry breaks neither and
    `key delete` refused it."""
    key = unique("gwn")
    assert cli(home, "key", "set", key, stdin="sk-test-" + key).returncode == 0
    add(home, "pe", "claude", "https://gw.example", "--key", key, "--option", "key_mode=env")
    add(home, "ce", "codex", "https://gw.example/v1", "--key", key, "--option", "key_mode=env_key")
    (home / "work" / "proj").mkdir()
    assert cli(home, "profile", "use", "pe", "--project", "proj").returncode == 0
    bound = json.loads((home / "work" / "proj" / ".claude" / "settings.local.json").read_text())
    assert "apiKeyHelper" not in bound and not bound["env"].get("ANTHROPIC_AUTH_TOKEN")
    assert cli(home, "profile", "use", "ce").returncode == 0
    assert "auth" not in (home / "codex" / "config.toml").read_text()
    done = cli(home, "key", "delete", key)
    assert done.returncode == 0, done.stderr
    assert "profiles using it: ce, pe" in done.stderr


def test_deleting_a_key_no_active_profile_reads_names_its_users(home: Path) -> None:
    key = unique("gwe")
    assert cli(home, "key", "set", key, stdin="sk-test-" + key).returncode == 0
    add(home, "idle-claude", "claude", "https://gw.example", "--key", key)
    done = cli(home, "key", "delete", key)
    assert done.returncode == 0 and "profiles using it: idle-claude" in done.stderr


def test_off_sdk_says_what_it_did_once(home: Path) -> None:
    add(home, "s", "sdk", "https://gw.example/v1", "--key", "k")
    assert cli(home, "profile", "use", "s").returncode == 0
    done = cli(home, "profile", "off", "sdk")
    assert done.returncode == 0
    assert "your values back" not in done.stdout and "no file to change" not in done.stdout
    assert "s is no longer the active sdk profile" in done.stdout
    again = cli(home, "profile", "off", "sdk").stdout
    assert "no sdk profile was active" in again


def test_off_with_nothing_to_undo_says_so_in_one_line(home: Path) -> None:
    settings = home / "claude" / "settings.json"
    settings.write_text('{"model": "mine"}\n')
    for extra in ((), ("--dry-run",), ("--project", str(home / "work"))):
        done = cli(home, "profile", "off", "claude", *extra)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        lines = done.stdout.splitlines()
        assert len(lines) == 1 and lines[0].startswith("nothing to undo: no judgeaudit profile"), (
            done.stdout
        )
    assert settings.read_text() == '{"model": "mine"}\n'
    add(home, "c", "claude", "https://gw.example", "--key", "k")
    assert cli(home, "profile", "use", "c").returncode == 0
    done = cli(home, "profile", "off", "claude")  # something to undo: the diff and the line
    assert "judgeaudit is off for claude" in done.stdout and "nothing to undo" not in done.stdout
    assert settings.read_text() == '{"model": "mine"}\n'


def test_doctor_names_the_json_error_as_use_does(home: Path) -> None:
    settings = home / "claude" / "settings.json"
    settings.write_text("{\n  x: 1}\n")
    add(home, "c", "claude", "https://gw.example", "--key", "k")
    refused = one_line(cli(home, "profile", "use", "c"))
    where = refused.split("judgeaudit: ", 1)[-1].split("; ")[0]
    assert re.search(r"settings\.json:2:3: invalid JSON \(", where), refused
    assert f"unreadable ({where})" in cli(home, "profile", "doctor", "claude").stdout


def test_doctor_names_the_toml_error_line_and_column(home: Path) -> None:
    config = home / "codex" / "config.toml"
    config.write_text('model = "o3"\n[model_providers.x\nbase_url = 1\n')
    out = cli(home, "profile", "doctor", "codex").stdout
    said = [line for line in out.splitlines() if "unreadable" in line]
    assert len(said) == 1 and "TOMLDecodeError" not in out, out
    pattern = rf"{re.escape(str(config))}:2:19: invalid TOML \(.+\); fix it or move it aside\)$"
    assert re.search(pattern, said[0]), said[0]


def test_list_shows_the_url_claude_code_is_given(home: Path) -> None:
    listing = cli(home, "profile", "list").stdout
    row = next(line for line in listing.splitlines() if " deepseek-claude " in line)
    assert "https://api.deepseek.com/anthropic" in row


def test_a_relative_claude_config_dir_is_a_different_file_in_each_directory(home: Path) -> None:
    """`CLAUDE_CONFIG_DIR=alt` names ./alt in each directory: a switch in one directory is
    neither active nor undone in another (`off` there emptied the first one's ledger, and `off`
    back in the first directory then left judgeaudit's keys in place)."""
    relative = {**world_env(home), "CLAUDE_CONFIG_DIR": "alt"}
    first, second = home / "work" / "x", home / "work" / "y"
    for folder, mine in ((first, "X_MINE"), (second, "Y_MINE")):
        (folder / "alt").mkdir(parents=True)
        (folder / "alt" / "settings.json").write_text(json.dumps({"env": {mine: "1"}}) + "\n")
    before = (first / "alt" / "settings.json").read_bytes()
    add(home, "rel-claude", "claude", "http://127.0.0.1:18801", "--key", "gwr")
    assert run_cli("profile", "use", "rel-claude", env=relative, cwd=first).returncode == 0
    assert _base(first / "alt" / "settings.json") == "http://127.0.0.1:18801"
    listing = run_cli("profile", "list", env=relative, cwd=second).stdout
    assert _marked(listing) == []
    assert run_cli("profile", "off", "claude", env=relative, cwd=second).returncode == 0
    assert _marked(run_cli("profile", "list", env=relative, cwd=first).stdout) == ["rel-claude"]
    assert run_cli("profile", "off", "claude", env=relative, cwd=first).returncode == 0
    assert (first / "alt" / "settings.json").read_bytes() == before

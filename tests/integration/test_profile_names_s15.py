"""Profile fields a new user's trial got through (each written to config.toml or the terminal):
a key pasted as Codex's ``provider_id`` (or ``codex-history --id``) was stored, written and
echoed; ``env_key = "PATH"`` put the key in ``PATH`` (exec then said "command not found"); a
description with escape sequences (CC Switch names are not the user's own text) cleared the
screen in ``profile list``. Real CLI; nothing is written on a refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.new_user_helpers import cli, home, one_line

__all__ = ["home"]  # the fixture, shared

PASTED = "sk-" + "ZZZZ1234567890abcdefghij"


def add_codex(home: Path, *option: str) -> tuple[int, str]:
    options = ("--option", *option) if option else ()
    done = cli(
        home, "profile", "add", "x", "--app", "codex", "--base-url", "http://127.0.0.1:9/v1",
        "--key-env", "X_KEY", *options,
    )  # fmt: skip
    return done.returncode, (done.stderr if done.returncode else "")


@pytest.mark.parametrize("option", ["provider_id", "env_key"])
def test_a_key_pasted_as_a_codex_name_is_refused_unechoed(home: Path, option: str) -> None:
    value = PASTED if option == "provider_id" else "SK_" + "A1b2C3d4" * 4
    code, said = add_codex(home, f"{option}={value}")
    assert code == 2, said
    assert f"options.{option}: looks like an API key" in said and value not in said
    assert not (home / "cfg" / "profiles" / "x.toml").exists()


def test_codex_history_refuses_a_key_as_its_id_unechoed(home: Path) -> None:
    done = cli(home, "profile", "codex-history", "shared", "--id", PASTED)
    assert done.returncode == 2
    assert "--id: looks like an API key" in one_line(done) and PASTED not in done.stderr
    assert "per gateway" in cli(home, "profile", "codex-history").stdout


@pytest.mark.parametrize("variable", ["PATH", "HOME", "LD_PRELOAD", "PYTHONPATH"])
def test_env_key_may_not_be_a_variable_programs_run_by(home: Path, variable: str) -> None:
    code, said = add_codex(home, f"env_key={variable}")
    assert code == 2
    assert f"options.env_key: {variable} is one the system and programs run by" in said
    code, said = add_codex(home, "env_key=GATEWAY_API_KEY")
    assert code == 0, said


def test_profile_list_shows_a_description_without_its_control_characters(home: Path) -> None:
    profiles = home / "cfg" / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "d.toml").write_text(
        'name = "d"\napp = "sdk"\nbase_url = "http://127.0.0.1:9/v1"\nkey_env = "D_KEY"\n'
        'description = "CC Switch: \\u001b[2J\\u001b]0;pwned\\u0007x"\n',
        encoding="utf-8",
    )
    listed = cli(home, "profile", "list")
    assert listed.returncode == 0, listed.stderr
    (line,) = [row for row in listed.stdout.splitlines() if " d " in row]
    assert "\x1b" not in line and "\x07" not in line
    assert "CC Switch: " in line and "[2J" in line and "pwned" in line


def test_a_codex_switch_warns_when_its_key_cannot_be_had(home: Path) -> None:
    """A Claude switch warned that its apiKeyHelper would find no key; a Codex switch with no
    stored key, or an unset key variable, said nothing (a new user's trial)."""
    code, said = add_codex(home)
    assert code == 0, said
    dry = cli(home, "profile", "use", "x", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert (
        "warning: Codex reads $X_KEY, which is not set in this terminal; Codex gets its key "
        "only where X_KEY is exported"
    ) in dry.stderr
    exported = cli(home, "profile", "use", "x", "--dry-run", env={"X_KEY": "k-1234567890"})
    assert "Codex reads $X_KEY" not in exported.stderr


@pytest.mark.usefixtures("secret_service")
def test_a_codex_switch_warns_when_the_keyring_has_no_such_key_yet(home: Path) -> None:
    name = "nokey-" + PASTED[-6:].lower()
    done = cli(
        home, "profile", "add", "y", "--app", "codex", "--base-url", "http://127.0.0.1:9/v1",
        "--key", name,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    dry = cli(home, "profile", "use", "y", "--dry-run")
    assert (
        f"warning: Codex's auth command runs `judgeaudit key print {name}`, but the keyring has"
        f" no key '{name}' yet: set it first (`judgeaudit key set {name}`, or k on the app's"
        " Profiles screen), else"
        " Codex gets no key"
    ) in dry.stderr


def test_the_doctor_warns_once_about_a_shell_api_key(home: Path) -> None:
    """The doctor said the same about a shell's ANTHROPIC_API_KEY twice, in other words."""
    done = cli(
        home, "profile", "add", "a", "--app", "claude", "--base-url", "http://127.0.0.1:9/v1",
        "--key-env", "A_KEY",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert cli(home, "profile", "use", "a", env={"A_KEY": "x-1234567890"}).returncode == 0
    shell_key = "sk-ant-" + "shell" * 6
    said = cli(home, "profile", "doctor", "claude", env={"ANTHROPIC_API_KEY": shell_key})
    warnings = [line for line in said.stdout.splitlines() if "warning" in line]
    assert [w for w in warnings if "ANTHROPIC_API_KEY" in w] == [
        "  warning: in this terminal's environment, ANTHROPIC_API_KEY is set (…hell): Claude"
        " Code sends it to 127.0.0.1:9 as x-api-key beside profile a's key (from $A_KEY): if it"
        " is a real Anthropic key, that gateway receives it (unset it)"
    ]
    assert shell_key not in said.stdout + said.stderr


@pytest.mark.parametrize(("url", "warned"), [
    ("http://gw.corp.example/v1", True),
    ("https://gw.corp.example/v1", False),
    ("http://127.0.0.1:9/v1", False),
    ("http://localhost:9/v1", False),
])  # fmt: skip
def test_a_switch_to_plain_http_on_another_machine_is_warned(
    home: Path, url: str, warned: bool
) -> None:
    """No word that a key would travel unencrypted (a new user's trial)."""
    done = cli(
        home, "profile", "add", "h", "--app", "codex", "--base-url", url, "--key-env", "H_KEY"
    )
    assert done.returncode == 0, done.stderr
    dry = cli(home, "profile", "use", "h", "--dry-run", env={"H_KEY": "k-1234567890"})
    assert ("is plain http to another machine" in dry.stderr) is warned, dry.stderr

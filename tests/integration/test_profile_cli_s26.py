"""What a twenty-sixth-session review of the profile CLI found wrong, as a user meets it: the
real CLI in a fresh world, with the real Secret Service keyring where a key is stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.new_user_helpers import add, cli, home, unique

__all__ = ["home"]  # the fixture, shared

SHORT = "tk-9Q7w4Za"  # 10 characters: its last four would be 40% of it
LONG = "sk-ant-" + "long" * 6 + "WXYZ"


@pytest.mark.parametrize(("token", "shown"), [(SHORT, "…"), (LONG, "…WXYZ")])
def test_doctor_shows_nothing_of_a_short_token(home: Path, token: str, shown: str) -> None:
    add(home, "a", "claude", "http://127.0.0.1:9/v1", "--key-env", "A_KEY")
    assert cli(home, "profile", "use", "a", env={"A_KEY": "x-1234567890"}).returncode == 0
    said = cli(home, "profile", "doctor", "claude", env={"ANTHROPIC_API_KEY": token})
    assert f"ANTHROPIC_API_KEY is set ({shown}): Claude Code sends it" in said.stdout, said.stdout
    if shown == "…":
        assert token[-4:] not in said.stdout + said.stderr


@pytest.mark.usefixtures("secret_service")
@pytest.mark.parametrize(("key", "shown"), [(SHORT, "…"), (LONG, "…WXYZ")])
def test_profile_show_masks_a_short_key_whole(home: Path, key: str, shown: str) -> None:
    name = unique("s26-mask")
    add(home, "s", "sdk", "https://gw.example.com/v1", "--key", name)
    assert cli(home, "key", "set", name, stdin=key).returncode == 0
    try:
        done = cli(home, "profile", "show", "s")
        status = cli(home, "key", "status")
    finally:
        cli(home, "key", "delete", name)
    assert f"# key {name}: {shown}\n" in done.stdout, done.stdout
    assert f"stored {shown}" in status.stdout, status.stdout
    if shown == "…":
        assert key[-4:] not in done.stdout + status.stdout


@pytest.mark.parametrize(
    ("typo", "hint"),
    [
        ("--scrub-other-provider", " (did you mean --scrub-other-providers?)"),
        ("--ass=plain", " (did you mean --as?)"),
        ("-x", ""),
        ("--key=Passw0rdXyz", ""),  # a value after '=' may be a key: never shown (reviewer)
        ("--sc", " (did you mean --scrub-other-providers?)"),  # a start: not --as (reviewer)
        ("-h", " (`judgeaudit exec --help` shows its help)"),
    ],
)
def test_exec_refuses_an_unknown_option_before_the_command(
    home: Path, typo: str, hint: str
) -> None:
    """A typo of an option after NAME ran as the command (exit 127, nothing scrubbed)."""
    add(home, "p", "sdk", "https://gw.example.com/v1", "--key-env", "P_KEY")
    marker = home / "work" / "ran"
    done = cli(home, "exec", "p", typo, "--", "sh", "-c", f"touch {marker}", env={"P_KEY": "k-123"})
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    shown = typo.partition("=")[0] + ("=…" if "=" in typo else "")
    assert done.stderr.splitlines() == [
        f"judgeaudit: exec: {shown} is not an option of exec{hint}; a command that itself starts"
        " with '-' goes after `--` (judgeaudit exec NAME -- CMD); nothing was run"
    ]
    assert not marker.exists()
    # after `--`, a command starting with '-' is the user's to run (here: not found, 127)
    assert cli(home, "exec", "p", "--", typo, env={"P_KEY": "k-123"}).returncode == 127


@pytest.mark.usefixtures("secret_service")
def test_profile_edit_removes_key_and_key_env_and_says_where_the_key_is(home: Path) -> None:
    name = unique("s26-edit")
    add(home, "p", "sdk", "https://gw.example.com/v1", "--key", name, "--key-env", "P_KEY")
    assert cli(home, "key", "set", name, stdin=LONG).returncode == 0
    file = home / "cfg" / "profiles" / "p.toml"
    try:
        done = cli(home, "profile", "edit", "p", "--key", "")
        status = cli(home, "key", "status", name)
    finally:
        cli(home, "key", "delete", name)
    assert done.returncode == 0, done.stderr
    assert "key =" not in file.read_text() and 'key_env = "P_KEY"' in file.read_text()
    assert done.stdout.splitlines()[1:] == [
        f"note: p no longer reads key {name}; the key stays in the keyring, used by no profile:"
        f" `judgeaudit key delete {name}` deletes it"
    ]
    assert "stored …WXYZ" in status.stdout, status.stdout
    before = file.read_text()
    left_keyless = cli(home, "profile", "edit", "p", "--key-env", "")
    assert left_keyless.returncode == 2
    assert "that leaves p without a key; give --key NAME or --key-env VAR" in left_keyless.stderr
    assert file.read_text() == before
    assert cli(home, "profile", "edit", "p", "--key-env", "", "--key", "k").returncode == 0
    assert "key_env" not in file.read_text()


def test_a_lower_case_key_env_is_told_its_upper_case_form(home: Path) -> None:
    add(home, "p", "sdk", "https://gw.example.com/v1", "--key-env", "P_KEY")
    done = cli(home, "profile", "edit", "p", "--key-env", "openai_api_key")
    assert done.returncode == 2
    assert done.stderr == (
        "judgeaudit: profile edit: key_env: 'openai_api_key': a variable's name is upper case"
        " here; use 'OPENAI_API_KEY'; nothing was saved\n"
    )


def test_profile_list_columns_hold_with_wide_characters(home: Path) -> None:
    """A CJK or emoji model id or URL shifted the columns after it (padded by characters)."""
    add(home, "ascii", "sdk", "https://gw.example.com/v1", "--key-env", "P_KEY", "--model", "m-1")
    add(
        home,
        "wide",
        "sdk",
        "https://网关.example.com/v1",
        "--key-env",
        "P_KEY",
        "--model",
        "模型🚀",
    )
    lines = [
        line
        for line in cli(home, "profile", "list").stdout.splitlines()
        if line.startswith("   ascii ") or line.startswith("   wide ")
    ]
    assert len(lines) == 2, lines
    assert len({cell_len(line.partition(" key ")[0]) for line in lines}) == 1, lines
    assert len({cell_len(line.partition(" 模型")[0].partition(" m-1")[0]) for line in lines}) == 1


@pytest.mark.usefixtures("secret_service")
def test_an_active_inline_profile_whose_key_is_gone_is_listed_and_doctored(home: Path) -> None:
    """`profile use` of a key_mode=inline Claude profile, then `key delete` of its key (allowed:
    the file holds the key): `profile list` and `doctor` stopped with `no key found`, exit 2,
    and the app's doctor crashed (a new user). Both say the key is missing and go on."""
    name = unique("s26-inline")
    add(home, "inl", "claude", "http://127.0.0.1:9/v1", "--model", "m", "--key", name,
        "--option", "key_mode=inline")  # fmt: skip
    assert cli(home, "key", "set", name, stdin=LONG).returncode == 0
    assert cli(home, "profile", "use", "inl").returncode == 0
    assert cli(home, "key", "delete", name, "--force").returncode == 0
    listed = cli(home, "profile", "list")
    assert listed.returncode == 0, listed.stderr
    assert f"key {name} (missing)" in listed.stdout and "no key found" not in listed.stderr
    doctor = cli(home, "profile", "doctor", "claude")
    assert doctor.returncode == 0, doctor.stderr
    assert f"warning: key {name} (profile inl's) is missing from the keyring" in doctor.stdout


def test_profile_edit_refuses_what_profile_add_refuses_for_codex(home: Path) -> None:
    """`profile edit c1 --key ''` of a codex profile with key_mode=command (it reads the
    keyring) saved a profile `use` and `exec` then refused; `profile add` refuses the same
    combination (a new user). Refused, nothing saved."""
    add(home, "c1", "codex", "https://gw.example.com/v1", "--key", "kc", "--key-env", "C_KEY",
        "--option", "key_mode=command")  # fmt: skip
    file = home / "cfg" / "profiles" / "c1.toml"
    before = file.read_text()
    done = cli(home, "profile", "edit", "c1", "--key", "")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "profile edit: " in done.stderr and "nothing was saved" in done.stderr
    assert "key_mode command reads a keyring entry" in done.stderr
    assert file.read_text() == before


@pytest.mark.usefixtures("secret_service")
@pytest.mark.parametrize("bound", [False, True])
def test_an_edit_of_the_active_profile_does_not_offer_to_delete_the_key_its_file_reads(
    home: Path, bound: bool
) -> None:
    """`profile use hp`, then `profile edit hp --key ''` (after giving it a key_env): the note
    said the key was used by no profile and `key delete` deleted it, while settings.json still
    ran `key print` of it on every request (a new user)."""
    name = unique("s26-active")
    add(home, "hp", "claude", "http://127.0.0.1:9/v1", "--model", "m", "--key", name)
    assert cli(home, "key", "set", name, stdin=LONG).returncode == 0
    try:
        (home / "work" / "api").mkdir(parents=True, exist_ok=True)
        where = ["--project", "api"] if bound else []  # a binding counts too (reviewer)
        assert cli(home, "profile", "use", "hp", *where).returncode == 0
        assert cli(home, "profile", "edit", "hp", "--key-env", "HP_KEY").returncode == 0
        done = cli(home, "profile", "edit", "hp", "--key", "")
    finally:
        cli(home, "key", "delete", name, "--force")
    assert done.returncode == 0, done.stderr
    assert "used by no profile" not in done.stdout, done.stdout
    assert "hp is switched on in " in done.stdout, done.stdout
    use = "`judgeaudit profile use hp --project`" if bound else "`judgeaudit profile use hp`"
    assert f"which still reads it until {use} applies the edit: delete it after that" in (
        done.stdout
    ), done.stdout


def test_a_hand_written_key_field_is_refused_naming_the_file(home: Path) -> None:
    """`key = "sk-…"` in a hand-written profile: `profile list` warned `key name: that looks
    like an API key itself`, naming no file, where every other field's refusal names it (a new
    user)."""
    folder = home / "cfg" / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / "hk3.toml"
    file.write_text(
        f'name = "hk3"\napp = "sdk"\nbase_url = "https://gw.example.com/v1"\nkey = "{LONG}"\n',
        encoding="utf-8",
    )
    listed = cli(home, "profile", "list")
    assert f"{file}: key: that looks like an API key itself" in listed.stderr, listed.stderr
    assert LONG not in listed.stdout + listed.stderr

"""``--key-env PATH`` was accepted: ``exec`` and ``env`` sent the user's ``PATH`` to the gateway
as the bearer token and ``profile test --all`` called it ok (a new user's trial, with the real
Codex). ``key_env`` is held to the rule ``options.env_key`` already had: never a variable the
system and programs run by. Real CLI; nothing is written on a refusal, and a profile file
written by hand is refused at its field."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.new_user_helpers import cli, home, one_line

__all__ = ["home"]  # the fixture, shared


@pytest.mark.parametrize(
    ("app", "variable"), [("codex", "PATH"), ("sdk", "HOME"), ("claude", "LD_PRELOAD")]
)
def test_key_env_may_not_be_a_variable_programs_run_by(home: Path, app: str, variable: str) -> None:
    done = cli(
        home, "profile", "add", "k", "--app", app, "--base-url", "http://127.0.0.1:9/v1",
        "--key-env", variable,
    )  # fmt: skip
    assert done.returncode == 2
    said = one_line(done)
    assert f"key_env: {variable} is one the system and programs run by" in said
    assert "its value would go out as the key" in said
    assert not (home / "cfg" / "profiles" / "k.toml").exists()


def test_a_hand_written_profile_with_key_env_path_is_refused_at_its_field(home: Path) -> None:
    profiles = home / "cfg" / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "p.toml").write_text(
        'name = "p"\napp = "sdk"\nbase_url = "http://127.0.0.1:9/v1"\nkey_env = "PATH"\n',
        encoding="utf-8",
    )
    done = cli(home, "env", "p", "--force")
    assert done.returncode != 0
    assert "key_env: PATH is one the system and programs run by" in done.stderr
    assert "/usr" not in done.stdout + done.stderr  # PATH's value printed nowhere


@pytest.mark.parametrize(
    "variable", ["GATEWAY_API_KEY", "PYTHONANYWHERE_API_KEY", "JUDGEAUDIT_GATEWAY_KEY"]
)
def test_a_name_of_its_own_is_still_taken(home: Path, variable: str) -> None:
    """Read from, a family's prefix is no harm (a review: PYTHONANYWHERE_API_KEY was refused
    with env_key's rule, which is about where exec puts the key)."""
    done = cli(
        home, "profile", "add", "k", "--app", "sdk", "--base-url", "http://127.0.0.1:9/v1",
        "--key-env", variable,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_bad_url_says_nothing_was_saved_only_where_something_would_have_been(
    home: Path,
) -> None:
    """``profile list`` of a hand-edited file with a URL holding credentials ended "…nothing
    was saved (fix or remove that file)" though nothing was being saved (a new user)."""
    url = "https://me:hunter2Zq9x@gw.example/v1"
    done = cli(home, "profile", "add", "u", "--app", "sdk", "--base-url", url, "--key-env", "U_K")
    line = one_line(done)
    assert done.returncode == 2 and line.count("nothing was saved") == 1, line
    assert "hunter2" not in done.stdout + done.stderr
    profiles = home / "cfg" / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "u.toml").write_text(
        f'name = "u"\napp = "sdk"\nbase_url = "{url}"\nkey_env = "U_K"\n', encoding="utf-8"
    )
    listed = cli(home, "profile", "list")
    assert "carries credentials" in listed.stderr and "(fix or remove that file)" in listed.stderr
    assert "nothing was saved" not in listed.stderr and "hunter2" not in listed.stderr


def test_profile_edit_mends_a_file_a_newer_rule_refuses(home: Path) -> None:
    """A profile written before the rule (``key_env = "PATH"``) could only be mended by hand or
    removed: ``profile edit`` loaded it first and refused (a reviewer). The edit that fixes the
    field is saved, the file's other fields kept; one that does not is refused with nothing
    written."""
    profiles = home / "cfg" / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    written = (
        'name = "p"\napp = "sdk"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m-1"\n'
        'key_env = "PATH"\n'
    )
    (profiles / "p.toml").write_text(written, encoding="utf-8")
    still = cli(home, "profile", "edit", "p", "--model", "m-2")
    assert still.returncode == 2 and "key_env: PATH is one the system" in one_line(still)
    assert "nothing was saved" in one_line(still)
    assert (profiles / "p.toml").read_text(encoding="utf-8") == written
    before = cli(home, "profile", "list")  # the warning names the mend
    assert "`judgeaudit profile edit p --FIELD VALUE` mends a field" in before.stderr
    mended = cli(home, "profile", "edit", "p", "--key-env", "GATEWAY_API_KEY")
    assert mended.returncode == 0, mended.stderr
    listed = cli(home, "profile", "list")
    assert listed.returncode == 0 and "warning" not in listed.stderr, listed.stderr
    line = next(x for x in listed.stdout.splitlines() if x.split()[:1] == ["p"])
    assert "m-1" in line and "env GATEWAY_API_KEY" in line and "127.0.0.1:9" in line


def test_profile_edit_of_a_file_without_an_app_says_so(home: Path) -> None:
    """A new user: ``profile edit`` of a hand-written file with no ``app`` line crashed
    (KeyError, exit 70); it names the field, saves nothing, and ``--app`` mends it."""
    profiles = home / "cfg" / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    written = 'name = "na"\nbase_url = "http://127.0.0.1:9/v1"\nkey_env = "NA_KEY"\n'
    (profiles / "na.toml").write_text(written, encoding="utf-8")
    done = cli(home, "profile", "edit", "na", "--key-env", "X_KEY")
    assert done.returncode == 2 and "app" in one_line(done), done.stderr
    assert "nothing was saved" in one_line(done)
    assert (profiles / "na.toml").read_text(encoding="utf-8") == written
    mended = cli(home, "profile", "edit", "na", "--app", "sdk")
    assert mended.returncode == 0, mended.stderr


@pytest.mark.parametrize(
    ("written", "said"),
    [
        # a second review: a list for app crashed (TypeError); a typo'd field was dropped
        ('name = "x1"\napp = ["sdk"]\nbase_url = "http://127.0.0.1:9/v1"\n', "app"),
        ('name = "x1"\napp = "sdk"\nbase_url = "http://127.0.0.1:9/v1"\nkey_env = "PATH"\n'
         'modle = "gpt"\n', "modle"),
    ],
)  # fmt: skip
def test_profile_edit_refuses_what_it_cannot_mend_and_drops_nothing(
    home: Path, written: str, said: str
) -> None:
    profiles = home / "cfg" / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "x1.toml").write_text(written, encoding="utf-8")
    done = cli(home, "profile", "edit", "x1", "--key-env", "X_KEY")
    assert done.returncode == 2 and said in one_line(done), done.stderr
    assert (profiles / "x1.toml").read_text(encoding="utf-8") == written


def test_the_mend_is_named_only_where_edit_can_mend(home: Path) -> None:
    profiles = home / "cfg" / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "bad.toml").write_text('name = "bad"\napp = \n', encoding="utf-8")
    listed = cli(home, "profile", "list")
    assert "bad.toml: not valid TOML" in listed.stderr and "mends a field" not in listed.stderr


@pytest.mark.parametrize("prefix", ["PATH", "home", "LD", "LD_PRELOAD", "PYTHON", "XDG"])
def test_env_prefix_may_not_name_the_systems_variables(home: Path, prefix: str) -> None:
    """``env_prefix = "LD"`` made exec and env write ``LD_API_KEY`` and keep ``LD_*`` as the
    profile's own; ``PATH``, ``HOME``, ``PYTHON...`` were taken too (a new user). Refused at
    the field, naming what to use; nothing written; a hand-written file named at its field."""
    done = cli(
        home, "profile", "add", "p", "--app", "sdk", "--base-url", "http://127.0.0.1:9/v1",
        "--key-env", "P_KEY", "--option", f"env_prefix={prefix}",
    )  # fmt: skip
    assert done.returncode == 2
    said = one_line(done)
    assert f"options.env_prefix: {prefix.upper()} is a variable or prefix the system" in said
    assert "use the provider's name, e.g. TAOTOKEN" in said
    profiles = home / "cfg" / "profiles"
    assert not (profiles / "p.toml").exists()
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "p.toml").write_text(
        'name = "p"\napp = "sdk"\nbase_url = "http://127.0.0.1:9/v1"\nkey_env = "P_KEY"\n'
        f'[options]\nenv_prefix = "{prefix}"\n',
        encoding="utf-8",
    )
    used = cli(home, "env", "p", env={"P_KEY": "k-" + "7" * 12})
    assert used.returncode != 0 and used.stdout == ""
    assert f"p.toml: options.env_prefix: {prefix.upper()} is a variable" in one_line(used)


def test_an_env_prefix_of_a_provider_is_still_taken(home: Path) -> None:
    done = cli(
        home, "profile", "add", "p", "--app", "sdk", "--base-url", "http://127.0.0.1:9/v1",
        "--key-env", "P_KEY", "--option", "env_prefix=PATHWAY",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr

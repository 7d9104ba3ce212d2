"""A project binding is given back as it was: ``off --project`` removes a ``.claude`` directory
the binding created (one the user had, or filled meanwhile, stays), and restoring a project
switch's backup gives back that project's binding and leaves the global profile alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_helpers import cli, cli_ok, stored_keys, tool_env

pytestmark = pytest.mark.usefixtures("secret_service")


def _bound_world(tmp_path: Path) -> dict[str, str]:
    env = tool_env(tmp_path, leave_out=("ANTHROPIC_", "CLAUDE_"))
    (tmp_path / "proj").mkdir()
    cli_ok(
        *("profile", "add", "pd-project", "--app", "claude"),
        *("--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--key", "pd-project"),
        env=env,
        whole_env=True,
        timeout=120,
    )
    return env


def _use_then_off(env: dict[str, str], project: Path, between: str | None = None) -> None:
    with stored_keys(env, {"pd-project": "fake-project-key-3"}):
        cli_ok("profile", "use", "pd-project", "--project", str(project), env=env, whole_env=True)
        assert (project / ".claude" / "settings.local.json").is_file()
        if between is not None:  # the user puts a file of their own next to the binding
            (project / ".claude" / between).write_text("mine\n")
        done = cli("profile", "off", "claude", "--project", str(project), env=env, whole_env=True)
        assert done.returncode == 0, done.stderr


def test_off_removes_the_claude_dir_the_binding_created(tmp_path: Path) -> None:
    env = _bound_world(tmp_path)
    project = tmp_path / "proj"
    _use_then_off(env, project)
    assert list(project.iterdir()) == []
    _use_then_off(env, project)  # and again: nothing remembered from the first time is stale
    assert list(project.iterdir()) == []


def test_off_keeps_a_claude_dir_the_user_had(tmp_path: Path) -> None:
    env = _bound_world(tmp_path)
    project = tmp_path / "proj"
    (project / ".claude").mkdir()
    _use_then_off(env, project)
    assert (project / ".claude").is_dir() and list((project / ".claude").iterdir()) == []


def test_off_keeps_a_created_claude_dir_the_user_put_files_in(tmp_path: Path) -> None:
    env = _bound_world(tmp_path)
    project = tmp_path / "proj"
    _use_then_off(env, project, between="commands.md")
    assert [p.name for p in (project / ".claude").iterdir()] == ["commands.md"]


def test_restoring_a_project_switch_gives_back_its_binding_not_the_global_profile(
    tmp_path: Path,
) -> None:
    env = _bound_world(tmp_path)
    project = tmp_path / "proj"
    for name in ("pd-global", "pd-global-2", "pd-other"):
        cli_ok(
            *("profile", "add", name, "--app", "claude", "--base-url", "http://127.0.0.1:9/v1"),
            *("--model", f"m-{name}", "--key", name),
            env=env,
            whole_env=True,
        )
    with stored_keys(env, {n: f"fake-key-{n}" for n in ("pd-project", "pd-other")}):
        cli_ok("profile", "use", "pd-global", env=env, whole_env=True)
        cli_ok("profile", "use", "pd-project", "--project", str(project), env=env, whole_env=True)
        local = project / ".claude" / "settings.local.json"
        bound_first = local.read_bytes()
        cli_ok("profile", "use", "pd-other", "--project", str(project), env=env, whole_env=True)
        cli_ok("profile", "use", "pd-global-2", env=env, whole_env=True)
        lines = cli_ok("profile", "backups", env=env, whole_env=True).stdout.splitlines()
        backup = next(
            line.split()[0]
            for line in lines
            if "settings.local.json" in line and "pd-other" in line
        )
        done = cli("profile", "restore", backup, env=env, whole_env=True)
        assert done.returncode == 0, done.stderr
        assert local.read_bytes() == bound_first
        doctor = cli_ok("profile", "doctor", "claude", env=env, whole_env=True, cwd=project)
        assert "bound to this directory: pd-project" in doctor.stdout
        listed = cli_ok("profile", "list", env=env, whole_env=True).stdout
        assert "* pd-global-2" in listed  # the global switch made after it is still the active one


def test_a_token_in_the_projects_own_file_is_blanked_kept_and_given_back(tmp_path: Path) -> None:
    """The binding blanks the token variables (a token outranks its apiKeyHelper); a token the
    project's own file held is replaced by the blank, kept in the keyring, never printed, and
    `off --project` puts the file back byte for byte."""
    env = _bound_world(tmp_path)
    project = tmp_path / "proj"
    (project / ".claude").mkdir()
    local = project / ".claude" / "settings.local.json"
    token = "fake-own-project-token-" + "7" * 12
    local.write_text('{\n  "env": {"ANTHROPIC_AUTH_TOKEN": "' + token + '"}\n}\n')
    mine = local.read_bytes()
    with stored_keys(env, {"pd-project": "fake-project-key-3"}):
        done = cli_ok(
            "profile", "use", "pd-project", "--project", str(project), env=env, whole_env=True
        )
        assert token not in done.stdout + done.stderr
        written = local.read_text()
        assert token not in written and '"ANTHROPIC_AUTH_TOKEN": ""' in written
        assert '"ANTHROPIC_API_KEY": ""' in written
        done = cli("profile", "off", "claude", "--project", str(project), env=env, whole_env=True)
        assert done.returncode == 0, done.stderr
    assert local.read_bytes() == mine


def test_a_terminal_token_is_not_warned_of_where_the_binding_blanks_it(tmp_path: Path) -> None:
    """A new user with ANTHROPIC_AUTH_TOKEN exported was told "Claude Code sends it as the
    bearer token instead of the profile's key" by `use --project`, while the binding blanks it
    and the real Claude Code in the project sent the profile's key only. A global switch, which
    blanks nothing, still warns."""
    env = _bound_world(tmp_path)
    env = {**env, "ANTHROPIC_AUTH_TOKEN": "fake-shell-token-" + "5" * 12}
    project = tmp_path / "proj"
    with stored_keys(env, {"pd-project": "fake-project-key-3"}):
        bound = cli_ok(
            "profile", "use", "pd-project", "--project", str(project), env=env, whole_env=True
        )
        assert "ANTHROPIC_AUTH_TOKEN is set" not in bound.stdout + bound.stderr
        assert '"ANTHROPIC_AUTH_TOKEN": ""' in (project / ".claude/settings.local.json").read_text()
        switched = cli_ok("profile", "use", "pd-project", env=env, whole_env=True)
        assert "ANTHROPIC_AUTH_TOKEN is set" in switched.stderr


def test_a_key_mode_env_binding_still_warns_of_the_api_key_beside_the_token(
    tmp_path: Path,
) -> None:
    """A reviewer: a key_mode env binding leaves the terminal's tokens (they are its key), so
    Claude Code sends ANTHROPIC_API_KEY as x-api-key beside the bearer; the warning must stay."""
    env = _bound_world(tmp_path)
    cli_ok(
        *("profile", "add", "pd-env", "--app", "claude", "--base-url", "https://gw.example.com/v1"),
        *("--key-env", "GW_KEY", "--option", "key_mode=env"),
        env=env,
        whole_env=True,
    )
    env = {**env, "ANTHROPIC_API_KEY": "fake-shell-api-key-" + "4" * 12, "GW_KEY": "fake-gw-4"}
    env["ANTHROPIC_AUTH_TOKEN"] = "fake-shell-token-" + "5" * 12
    bound = cli_ok(
        "profile", "use", "pd-env", "--project", str(tmp_path / "proj"), env=env, whole_env=True
    )
    assert (
        "ANTHROPIC_API_KEY is set (…4444): Claude Code sends it to gw.example.com as x-api-key"
        in (bound.stderr)
    )


def test_a_folder_whose_name_is_not_utf8_is_refused_before_the_state_is_written(
    tmp_path: Path,
) -> None:
    """`profile use NAME --project .` in such a folder was bound, and every profile command
    then refused state.json ("the entry for '.../proj\\udcff' must be an absolute directory")
    until it was edited by hand (a new user)."""
    import os

    env = _bound_world(tmp_path)
    folder = tmp_path / os.fsdecode(b"proj\xff")
    folder.mkdir()
    with stored_keys(env, {"pd-project": "fake-project-key-3"}):
        for words in (("use", "pd-project"), ("off", "claude")):
            done = cli("profile", *words, "--project", ".", env=env, whole_env=True, cwd=folder)
            assert done.returncode == 2, done.stderr
            assert "the folder's name is not valid UTF-8" in done.stderr, done.stderr
            assert "nothing was changed" in done.stderr
        assert list(folder.iterdir()) == []
        listed = cli("profile", "list", env=env, whole_env=True)
        assert listed.returncode == 0, listed.stderr


def test_a_bidi_character_in_the_folders_name_is_shown_escaped(tmp_path: Path) -> None:
    """`profile use NAME --project .` in a folder named `p\\u202eevil` printed the raw right-to-
    left override, which turns the rest of the line around (doctor escapes it; a new user)."""
    env = _bound_world(tmp_path)
    folder = tmp_path / "p\u202eevil"
    folder.mkdir()
    with stored_keys(env, {"pd-project": "fake-project-key-3"}):
        done = cli("profile", "use", "pd-project", "--project", ".", env=env, whole_env=True,
                   cwd=folder)  # fmt: skip
        assert done.returncode == 0, done.stderr
        cli("profile", "off", "claude", "--project", ".", env=env, whole_env=True, cwd=folder)
    assert "\u202e" not in done.stdout
    assert "active claude profile: pd-project in " in done.stdout
    assert "p\\u202eevil" in done.stdout, done.stdout

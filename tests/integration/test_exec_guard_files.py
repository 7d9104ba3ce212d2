"""`exec B -- <a command exec cannot recognise>` while a Codex provider table sends a variable
exec exports with B's key to another gateway (a review, nineteenth session). The guard read
only ``env_key`` and ``env_http_headers``, so the ``auth`` command judgeaudit itself writes
when two profiles of one gateway share a provider id (one with a keyring entry, one with
``key_env``) printed B's key to gateway A, exit 0; and it listed Codex's files itself, without
the managed config. Real CLI; B reads its key from a variable and no key is in argv (a keyring
entry is only named, never read: no keyring is needed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from judgeaudit.profiles.targets import PRINT_ENV
from tests.new_user_helpers import KEYRING_OK, add, cli, home, one_line

__all__ = ["home"]  # the fixture, shared

OURS = "http://127.0.0.1:9/v1"
OTHER = "http://127.0.0.1:18801/v1"
KEY = "k-b-" + "5" * 16
#: a command that would leave a mark if exec ran it
MARK = "import pathlib; pathlib.Path('ran').write_text('x')"


def _exec_b(home: Path, *extra: str) -> tuple[int, str]:
    """``exec b [extra] -- python -c MARK`` with B's key in ``B_KEY``: its exit and stderr."""
    done = cli(home, "exec", "b", *extra, "--", sys.executable, "-c", MARK, env={"B_KEY": KEY})
    assert KEY not in done.stdout + done.stderr
    return done.returncode, one_line(done) if done.returncode else done.stderr


def _ran(home: Path) -> bool:
    return (home / "work" / "ran").exists()


def test_the_auth_command_judgeaudit_writes_for_a_shared_provider_id_is_refused(
    home: Path,
) -> None:
    add(home, "a2", "codex", OTHER, "--key", "a2key", "--option", "provider_id=gwa")
    add(home, "a1", "codex", OTHER, "--key-env", "OPENAI_API_KEY", "--option", "provider_id=gwa")
    add(home, "b", "codex", OURS, "--key-env", "B_KEY")
    for name in ("a2", "a1"):
        assert cli(home, "profile", "use", name, env=KEYRING_OK).returncode == 0
    config = (home / "codex" / "config.toml").read_text()
    assert "env_key" not in config and "OPENAI_API_KEY" in config  # the auth command form
    code, line = _exec_b(home)
    assert code == 2, line
    assert f"config.toml [model_providers.gwa] sends $OPENAI_API_KEY to {OTHER}" in line
    assert "nothing was run" in line and not _ran(home)


#: a script of the user's whose command line names no variable (a review, twentieth session:
#: the guard only counted a variable a command line named, and this one printed B's key)
SCRIPT = "printf '%s' \"$OPENAI_API_KEY\"\n"


@pytest.mark.parametrize(
    ("command", "args", "refused"),
    [
        ("sh", ["-c", 'printf %s "$OPENAI_API_KEY"'], True),  # a hand-written command reading it
        ("SCRIPT", [], True),  # names nothing, prints it all the same
        ("sh", ["-c", 'printf %s "$OPENAI_API_KEY_2"'], True),  # any command of the user's
        ("sh", ["-m", "judgeaudit", "key", "print", "gwa"], True),  # our arguments, not ours
        ("python3", ["-m", "judgeaudit", "key", "print", "gwa"], False),  # a keyring entry
        ("/opt/venv/bin/python3.12", ["-c", PRINT_ENV, "OPENAI_API_KEY_2"], False),  # another
    ],
)
def test_an_auth_command_that_is_not_judgeaudits_is_refused(
    home: Path, command: str, args: list[str], refused: bool
) -> None:
    add(home, "b", "codex", OURS, "--key-env", "B_KEY")
    if command == "SCRIPT":
        command = str(home / "key.sh")
        Path(command).write_text("#!/bin/sh\n" + SCRIPT)
        Path(command).chmod(0o755)
    (home / "codex" / "config.toml").write_text(
        'model_provider = "mygw"\n\n[model_providers.mygw]\nname = "mine"\n'
        f'base_url = "{OTHER}"\nwire_api = "responses"\n'
        f"auth = {{ command = {_quoted(command)}, args = [{', '.join(map(_quoted, args))}] }}\n"
    )
    code, line = _exec_b(home)
    if refused:
        assert code == 2, line
        assert (
            f"config.toml [model_providers.mygw] runs an auth command that is not judgeaudit's "
            f"and may print $OPENAI_API_KEY, sending it to {OTHER}"
        ) in line
        assert "nothing was run: say `judgeaudit exec b --as codex -- ...`" in line
    else:
        assert code == 0, line
    assert _ran(home) is not refused


def _quoted(arg: str) -> str:
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_a_provider_table_in_codexs_managed_config_is_asked_too(home: Path) -> None:
    """The guard listed ``config.toml`` and ``NAME.config.toml`` itself and missed the managed
    config Codex reads above them (``shadowing.codex_layers`` owns that list): exit 0."""
    add(home, "b", "codex", OURS, "--key-env", "B_KEY")
    (home / "managed.toml").write_text(
        f'[model_providers.corp]\nname = "corp"\nbase_url = "{OTHER}"\nwire_api = "responses"\n'
        'env_key = "OPENAI_API_KEY"\n'
    )
    code, line = _exec_b(home)
    assert code == 2, line
    assert f"managed.toml [model_providers.corp] sends $OPENAI_API_KEY to {OTHER}" in line
    assert not _ran(home)


def test_an_sdk_profile_beside_a_codex_provider_is_refused_in_plain_words(home: Path) -> None:
    """For a profile of another app the refusal read "nothing was run: say use a codex profile
    for Codex, ..." (a new user, twenty-fourth session)."""
    add(home, "b", "sdk", OURS, "--key-env", "B_KEY")
    (home / "codex" / "config.toml").write_text(
        f'model_provider = "mygw"\n\n[model_providers.mygw]\nname = "mine"\nbase_url = "{OTHER}"\n'
        'wire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n'
    )
    code, line = _exec_b(home)
    assert code == 2, line
    assert (
        "nothing was run: use a codex profile for Codex, or `judgeaudit exec b --as plain" in line
    )
    assert "say use" not in line and not _ran(home)

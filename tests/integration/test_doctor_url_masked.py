"""`profile doctor` masked a URL's ``user:password@`` only on lines labelled "base URL": an
``apiKeyHelper`` or a Codex ``auth`` command that fetches the key from such a URL printed the
password in clear (so did the app's doctor, which shows the same lines). Every value is masked
by the one rule (``credentials.mask_inline_credentials``), whatever its label."""

from __future__ import annotations

import json
from pathlib import Path

from tests.new_user_helpers import cli, home

__all__ = ["home"]  # the fixture, shared

URL = "https://user:pw@host/v1"


def test_a_url_s_credentials_are_masked_on_every_doctor_line(home: Path) -> None:
    (home / "claude" / "settings.json").write_text(
        json.dumps({"apiKeyHelper": f"curl -s {URL}", "env": {"ANTHROPIC_BASE_URL": URL}})
    )
    (home / "codex" / "config.toml").write_text(
        'model_provider = "gw"\n[model_providers.gw]\nname = "gw"\n'
        f'base_url = "{URL}"\nauth = {{ command = "curl", args = ["-s", "{URL}"] }}\n'
    )
    done = cli(home, "profile", "doctor", env={"OPENAI_BASE_URL": URL})
    assert done.returncode == 0, done.stderr
    out = done.stdout + done.stderr
    assert "pw@" not in out, out
    lines = out.splitlines()
    helper = next(x for x in lines if x.startswith("  key       apiKeyHelper"))
    command = next(x for x in lines if x.startswith("  key       command"))
    assert "`curl -s https://***@host/v1`" in helper and "https://***@host/v1" in command
    assert sum(x.startswith("  base URL  https://***@host/v1") for x in lines) == 3


def test_a_key_in_a_codex_auth_command_is_masked_as_the_claude_helpers_is(home: Path) -> None:
    """The Claude ``apiKeyHelper`` line masked a key-shaped word; the Codex ``auth`` command
    line printed one in clear (``sh -c "echo sk-..."``; a review)."""
    key = "sk-" + "Qw3Er5Ty7Ui9Op1As3Df5Gh7"
    (home / "codex" / "config.toml").write_text(
        'model_provider = "gw"\n[model_providers.gw]\nname = "gw"\nbase_url = "http://h/v1"\n'
        f'auth = {{ command = "sh", args = ["-c", "echo {key}"] }}\n'
    )
    done = cli(home, "profile", "doctor", "codex")
    assert done.returncode == 0, done.stderr
    assert key not in done.stdout + done.stderr
    command = next(x for x in done.stdout.splitlines() if x.startswith("  key       command"))
    assert command.startswith("  key       command `sh -c 'echo "), command  # quoted as sh reads it


def test_a_login_in_a_helper_or_auth_command_is_masked_whole(home: Path) -> None:
    """``https://user:p@ss@host`` showed ``ss`` (masked to the first ``@``), and ``curl -u
    user:pw`` or a bare ``user:pw@host`` in a helper's or Codex auth command's line was printed
    in clear (a review)."""
    helper = (
        "curl -s -u alice:s3cret https://key.example/v1 --proxy deploy:hunter2@proxy.local:3128"
    )
    (home / "claude" / "settings.json").write_text(
        json.dumps({"apiKeyHelper": helper, "env": {"ANTHROPIC_BASE_URL": "https://u:p@ss@h/v1"}})
    )
    (home / "codex" / "config.toml").write_text(
        'model_provider = "gw"\n[model_providers.gw]\nname = "gw"\nbase_url = "http://h/v1"\n'
        'auth = { command = "curl", args = ["--user", "bob:t0psecret", "https://h/key"] }\n'
    )
    done = cli(home, "profile", "doctor")
    assert done.returncode == 0, done.stderr
    out = done.stdout + done.stderr
    for secret in ("s3cret", "hunter2", "ss@", "t0psecret"):
        assert secret not in out, out
    lines = out.splitlines()
    shown = next(x for x in lines if x.startswith("  key       apiKeyHelper"))
    assert "`curl -s -u *** https://key.example/v1 --proxy ***@proxy.local:3128`" in shown
    assert any(x.startswith("  base URL  https://***@h/v1") for x in lines), out
    command = next(x for x in lines if x.startswith("  key       command"))
    assert "curl --user *** https://h/key" in command, command


def test_an_auth_argument_with_a_space_is_masked_whole(home: Path) -> None:
    """A new user: Codex ``auth`` arguments were joined with spaces, so ``-u "alice:pw with
    space"`` showed ``-u *** with space``; each argument is quoted whole, as a shell reads it."""
    (home / "codex" / "config.toml").write_text(
        'model_provider = "gw"\n[model_providers.gw]\nname = "gw"\nbase_url = "http://h/v1"\n'
        'auth = { command = "curl", args = ["-u", "alice:pw with space", "https://h/key"] }\n'
    )
    done = cli(home, "profile", "doctor", "codex")
    assert done.returncode == 0, done.stderr
    assert "with space" not in done.stdout + done.stderr
    command = next(x for x in done.stdout.splitlines() if x.startswith("  key       command"))
    assert "`curl -u *** https://h/key`" in command, command


def test_an_sh_c_auth_script_keeps_its_password_masked(home: Path) -> None:
    """A second review: quoting the joined arguments put ``sh -c "curl -u 'alice:p w' …"``'s
    password back in clear; each argument is masked before it is quoted."""
    (home / "codex" / "config.toml").write_text(
        'model_provider = "gw"\n[model_providers.gw]\nname = "gw"\nbase_url = "http://h/v1"\n'
        'auth = { command = "sh", args = ["-c", "curl -u \'alice:p w\' https://h/key"] }\n'
    )
    done = cli(home, "profile", "doctor", "codex")
    assert done.returncode == 0, done.stderr
    assert "p w" not in done.stdout + done.stderr
    command = next(x for x in done.stdout.splitlines() if x.startswith("  key       command"))
    assert "`sh -c 'curl -u *** https://h/key'`" in command, command

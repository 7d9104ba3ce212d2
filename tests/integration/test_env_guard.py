"""`judgeaudit env NAME` and a file of the user's that would send the key elsewhere (a new user's
trial, twentieth session, with the real Claude Code against two loopback gateways): with Claude
Code globally switched to gateway B, `eval "$(judgeaudit env a-claude)"; claude -p hi` sent key
A to gateway B (its request log held A's fingerprint) while `env` exited 0 and said nothing;
`exec` refuses that case. `env` now refuses it with exec's guard, printing nothing for `eval`,
and refuses to print a key to a terminal without `--force`."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import JUDGEAUDIT, world_env
from tests.new_user_helpers import add, cli, home, one_line, unique

__all__ = ["home"]  # the fixture, shared

pytestmark = pytest.mark.usefixtures("secret_service")

KEY_A = "sk-a-" + "7" * 20
KEY_B = "sk-b-" + "8" * 20
GW_A, GW_B = "http://127.0.0.1:18771", "http://127.0.0.1:18772"


def _claude_pair(home: Path) -> str:
    """Profiles a-claude and b-claude (keys in the keyring), b-claude switched in globally."""
    ka, kb = unique("ka"), unique("kb")
    for name, value in ((ka, KEY_A), (kb, KEY_B)):
        assert cli(home, "key", "set", name, stdin=value + "\n").returncode == 0
    add(home, "a-claude", "claude", GW_A, "--key", ka, "--model", "m")
    add(home, "b-claude", "claude", GW_B, "--key", kb, "--model", "m")
    done = cli(home, "profile", "use", "b-claude")
    assert done.returncode == 0, done.stderr
    return ka


def test_env_refuses_while_a_global_switch_would_send_the_key_to_its_gateway(home: Path) -> None:
    _claude_pair(home)
    done = cli(home, "env", "a-claude")
    line = one_line(done)
    assert done.returncode == 2
    assert done.stdout == ""  # `eval "$(...)"` evaluates nothing
    assert "settings.json sets env.ANTHROPIC_BASE_URL" in line, line
    assert "nothing was printed" in line and "`judgeaudit exec a-claude -- claude ...`" in line
    assert "--force" in line and KEY_A not in line
    # the same file exec names for a command it cannot recognise (one guard)
    ran = cli(home, "exec", "a-claude", "--", sys.executable, "-c", "pass")
    assert ran.returncode == 2 and "settings.json sets env.ANTHROPIC_BASE_URL" in one_line(ran)
    # the user says no Claude Code runs with these exports: printed
    forced = cli(home, "env", "a-claude", "--force")
    assert forced.returncode == 0, forced.stderr
    assert f"export ANTHROPIC_AUTH_TOKEN='{KEY_A}'" in forced.stdout
    # the switched profile's own exports send its key nowhere else
    own = cli(home, "env", "b-claude")
    assert own.returncode == 0 and f"export ANTHROPIC_AUTH_TOKEN='{KEY_B}'" in own.stdout


def test_env_refuses_while_codex_would_send_the_key_elsewhere(home: Path) -> None:
    add(home, "b", "codex", GW_A + "/v1", "--key-env", "B_KEY")
    (home / "codex" / "config.toml").write_text(
        'model_provider = "mygw"\n\n[model_providers.mygw]\nname = "mine"\n'
        f'base_url = "{GW_B}/v1"\nenv_key = "OPENAI_API_KEY"\n'
    )
    done = cli(home, "env", "b", env={"B_KEY": KEY_A})
    line = one_line(done)
    assert done.returncode == 2 and done.stdout == ""
    assert f"config.toml [model_providers.mygw] sends $OPENAI_API_KEY to {GW_B}/v1" in line
    assert "`judgeaudit exec b -- codex ...`" in line and KEY_A not in line


def _on_a_terminal(home: Path, *args: str) -> tuple[int, str, str]:
    """``judgeaudit ARGS`` with standard output on a pseudo-terminal: (exit, stdout, stderr)."""
    leader, follower = pty.openpty()
    done = subprocess.run(
        [*JUDGEAUDIT, *args],
        env={**os.environ, **world_env(home), "B_KEY": KEY_A},
        cwd=home / "work",
        stdout=follower,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=120,
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal's other end is closed: all read
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return done.returncode, shown.decode(), done.stderr


def test_env_does_not_print_a_key_to_a_terminal_unless_forced(home: Path) -> None:
    add(home, "s", "sdk", GW_A + "/v1", "--key-env", "B_KEY")
    code, shown, err = _on_a_terminal(home, "env", "s")
    assert code == 2 and KEY_A not in shown + err, shown + err
    assert "standard output is a terminal" in err and 'eval "$(judgeaudit env s' in err
    code, shown, err = _on_a_terminal(home, "env", "s", "--force")
    assert code == 0 and KEY_A in shown, err
    # a pipe (what `eval "$(...)"` reads) is no terminal
    piped = cli(home, "env", "s", env={"B_KEY": KEY_A})
    assert piped.returncode == 0 and f"export OPENAI_API_KEY='{KEY_A}'" in piped.stdout


def test_env_of_a_codex_profile_says_codex_does_not_read_the_exports(home: Path) -> None:
    """Codex 0.171 ignores OPENAI_BASE_URL (it went to api.openai.com), so `eval "$(judgeaudit
    env a-codex)"; codex exec ...` never reached the gateway, silently; the exports are kept
    (other programs read them) and one stderr line names what does work."""
    add(home, "a-codex", "codex", GW_A + "/v1", "--key-env", "B_KEY")
    add(home, "s", "sdk", GW_A + "/v1", "--key-env", "B_KEY")
    done = cli(home, "env", "a-codex", env={"B_KEY": KEY_A})
    assert done.returncode == 0, done.stderr
    assert f"export OPENAI_BASE_URL='{GW_A}/v1'" in done.stdout
    assert f"export OPENAI_API_KEY='{KEY_A}'" in done.stdout
    line = one_line(done)
    assert "Codex does not read these variables" in line
    assert "`judgeaudit exec a-codex -- codex ...`" in line
    assert "`judgeaudit profile use a-codex`" in line and KEY_A not in line
    sdk = cli(home, "env", "s", env={"B_KEY": KEY_A})
    assert sdk.returncode == 0 and sdk.stderr == ""  # other profiles: as before


def test_env_of_an_inline_profile_switched_in_is_its_own_key_to_its_own_gateway(
    home: Path,
) -> None:
    """A reviewer: with a key_mode inline profile switched in, settings.json holds its own key
    beside its own URL, and `env` of that same profile was refused as a redirect. Another
    profile's env is still refused (that token would go before its key)."""
    ka = _claude_pair(home)
    ki = unique("ki")
    assert cli(home, "key", "set", ki, stdin=KEY_B + "\n").returncode == 0
    add(home, "i-claude", "claude", GW_B, "--key", ki, "--model", "m", "--option",
        "key_mode=inline")  # fmt: skip
    assert cli(home, "profile", "use", "i-claude").returncode == 0
    own = cli(home, "env", "i-claude")
    assert own.returncode == 0, own.stderr
    assert f"export ANTHROPIC_AUTH_TOKEN='{KEY_B}'" in own.stdout
    other = cli(home, "env", "a-claude")
    assert other.returncode == 2 and other.stdout == "" and ka


def test_exec_of_an_inline_profile_switched_in_agrees_with_env(home: Path) -> None:
    """A review: `env i-claude` passed its own key for its own, `exec i-claude -- CMD` (a
    command exec cannot recognise, so the same guard) was refused over that same token. Both
    pass now; another profile's exec is still refused."""
    _claude_pair(home)
    ki = unique("ki")
    assert cli(home, "key", "set", ki, stdin=KEY_B + "\n").returncode == 0
    add(home, "i-claude", "claude", GW_B, "--key", ki, "--model", "m", "--option",
        "key_mode=inline")  # fmt: skip
    assert cli(home, "profile", "use", "i-claude").returncode == 0
    assert cli(home, "env", "i-claude").returncode == 0
    ran = cli(
        home, "exec", "i-claude", "--", "sh", "-c", 'test -n "$ANTHROPIC_AUTH_TOKEN" && echo ok'
    )
    assert ran.returncode == 0 and ran.stdout == "ok\n", ran.stderr
    other = cli(home, "exec", "a-claude", "--", "sh", "-c", "echo ran")
    assert other.returncode == 2 and "ran" not in other.stdout, other.stderr
    assert "settings.json sets env.ANTHROPIC_" in one_line(other)

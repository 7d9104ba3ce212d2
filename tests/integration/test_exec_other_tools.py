"""`exec` of a profile whose key a command's own files would send elsewhere (a new user's
trial, eighteenth session): with a hand-written Codex provider reading ``OPENAI_API_KEY`` in
``config.toml``, ``exec B -- env codex ...`` (any command exec cannot recognise) exported B's key
into that variable and Codex sent it to the other gateway; a profile of one app given to the
other client did nothing useful (``Not logged in``) or used the global config. Real CLI; the
profiles read their key from a variable, so no keyring is needed and no key is in argv."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.new_user_helpers import KEYRING_OK, add, cli, home, one_line

__all__ = ["home"]  # the fixture, shared

OURS = "http://127.0.0.1:9/v1"
OTHER = "http://127.0.0.1:18801/v1"
KEY = "k-b-" + "5" * 16
MYGW = """model_provider = "mygw"

[model_providers.mygw]
name = "my gateway"
base_url = "{url}"
wire_api = "responses"
env_key = "{var}"
"""
#: a command that would leave a mark if exec ran it
MARK = "import pathlib; pathlib.Path('ran').write_text('x')"


def _config(home: Path, url: str = OTHER, var: str = "OPENAI_API_KEY") -> None:
    (home / "codex" / "config.toml").write_text(MYGW.format(url=url, var=var))


@pytest.mark.parametrize("app", ["codex", "sdk", "claude"])
def test_an_unrecognised_command_is_refused_while_codex_would_send_the_key_elsewhere(
    home: Path, app: str
) -> None:
    add(home, "b", app, OURS if app != "claude" else OURS[:-3], "--key-env", "B_KEY")
    _config(home)
    done = cli(home, "exec", "b", "--", sys.executable, "-c", MARK, env={"B_KEY": KEY})
    line = one_line(done)
    assert done.returncode == 2, done.stderr
    assert "config.toml [model_providers.mygw] sends $OPENAI_API_KEY to " + OTHER in line
    assert "--as plain" in line and ("--as codex" in line) == (app == "codex"), line
    assert KEY not in done.stdout + done.stderr
    assert not (home / "work" / "ran").exists()  # nothing was run
    # the user says there is no Codex inside: the environment is given
    plain = cli(home, "exec", "b", "--as", "plain", "--", sys.executable, "-c", MARK,
                env={"B_KEY": KEY})  # fmt: skip
    assert plain.returncode == 0, plain.stderr
    assert (home / "work" / "ran").exists()


def test_a_provider_that_sends_the_key_to_this_gateway_or_reads_another_variable_is_fine(
    home: Path,
) -> None:
    add(home, "b", "codex", OURS, "--key-env", "B_KEY")
    for url, var in ((OURS + "/", "OPENAI_API_KEY"), (OTHER, "MY_OWN_KEY")):
        _config(home, url, var)
        done = cli(home, "exec", "b", "--", sys.executable, "-c", "print('ok')",
                   env={"B_KEY": KEY})  # fmt: skip
        assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_a_provider_sending_the_key_in_a_header_from_the_variable_is_refused_too(
    home: Path,
) -> None:
    """``env_http_headers`` fills a header from a variable: a review sent B's key to gateway A
    through ``{"x-gateway-key" = "OPENAI_API_KEY"}`` while the table's own ``env_key`` was
    another variable (seen in A's request log with the real Codex)."""
    add(home, "b", "codex", OURS, "--key-env", "B_KEY")
    _config(home, OTHER, "GWA_KEY")
    config = home / "codex" / "config.toml"
    config.write_text(
        config.read_text() + 'env_http_headers = { "x-gateway-key" = "OPENAI_API_KEY" }\n'
    )
    done = cli(home, "exec", "b", "--", sys.executable, "-c", MARK, env={"B_KEY": KEY})
    assert done.returncode == 2, done.stderr
    assert "[model_providers.mygw] sends $OPENAI_API_KEY to " + OTHER in one_line(done)
    assert not (home / "work" / "ran").exists()


@pytest.mark.parametrize(
    ("app", "argv", "client"),
    [("codex", ["claude", "-p", "hi"], "Claude Code"), ("claude", ["codex", "exec", "hi"], "Codex"),
     ("sdk", ["codex", "exec", "hi"], "Codex")],
)  # fmt: skip
def test_a_client_is_refused_a_profile_of_another_app(
    home: Path, app: str, argv: list[str], client: str
) -> None:
    add(home, "b", app, OURS, "--key-env", "B_KEY")
    done = cli(home, "exec", "b", "--", *argv, env={"B_KEY": KEY})
    line = one_line(done)
    assert done.returncode == 2
    assert f"{argv[0]} is {client}" in line and f"'b' is a {app} profile" in line, line
    assert "--as plain" in line and KEY not in line


def test_a_profile_exec_cannot_run_exits_2_as_documented(home: Path) -> None:
    """docs/profiles.md said the refusal of an unrecognised command exits 126 (the code of a
    command that cannot run); it exits 2, as every refusal that ran nothing."""
    add(home, "b", "claude", OURS[:-3], "--key-env", "B_KEY")
    (home / "claude" / "settings.json").write_text(
        '{"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:18801"}}\n'
    )
    done = cli(home, "exec", "b", "--", "env", env={"B_KEY": KEY})
    assert done.returncode == 2 and "settings.json sets env.ANTHROPIC_BASE_URL" in one_line(done)
    docs = (Path(__file__).parents[2] / "docs" / "profiles.md").read_text(encoding="utf-8")
    refusal = docs[docs.index("So exec **refuses** an unrecognised") :]
    assert "exits 2," in refusal[: refusal.index("Say what the")]


@pytest.mark.parametrize("command", ["exec", "test"])
def test_a_key_env_profile_without_its_variable_names_the_variable(
    home: Path, command: str
) -> None:
    add(home, "a", "claude", OURS[:-3], "--key-env", "GWA_ENVKEY")
    args = (
        ("exec", "a", "--", "claude", "-p", "hi") if command == "exec" else ("profile", "test", "a")
    )
    done = cli(home, *args)
    assert done.returncode != 0
    line = one_line(done)
    assert "export GWA_ENVKEY" in line and "set key =" not in line, line


def test_a_claude_profiles_openai_variables_carry_the_openai_base(home: Path) -> None:
    """A Claude profile's base URL is the Anthropic one (no /v1); OPENAI_BASE_URL got it as it
    was and the openai SDK's chat.completions got a 404."""
    add(home, "b", "claude", OURS[:-3], "--key-env", "B_KEY")
    probe = "import os; print(os.environ['OPENAI_BASE_URL'], os.environ['OPENAI_API_BASE'])"
    done = cli(home, "exec", "b", "--as", "plain", "--", sys.executable, "-c", probe,
               env={"B_KEY": KEY})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [OURS, OURS]
    exports = cli(home, "env", "b", env={"B_KEY": KEY}).stdout
    assert f"export OPENAI_BASE_URL='{OURS}'" in exports
    assert f"export OPENAI_API_BASE='{OURS}'" in exports
    assert f"export ANTHROPIC_BASE_URL='{OURS[:-3]}'" in exports


def _merged(home: Path, name: str) -> dict[str, object]:
    """The provider table ``codex -p NAME`` sees: NAME.config.toml's over config.toml's."""
    import tomllib

    codex = home / "codex"
    base = tomllib.loads((codex / "config.toml").read_text())
    over = tomllib.loads((codex / f"{name}.config.toml").read_text())
    ident = over["model_provider"]
    return {**base["model_providers"].get(ident, {}), **over["model_providers"][ident]}


@pytest.mark.parametrize("order", [("kr", "ev"), ("ev", "kr")], ids="->".join)
def test_codex_profile_files_of_one_gateway_merge_after_either_switch(
    home: Path, order: tuple[str, str]
) -> None:
    """Codex refused `codex -p kr` after `use kr`, `use ev` (one gateway, one provider id; an
    auth command in kr.config.toml, env_key in config.toml): every table of the id is a
    command now, the env_key profile's printing its variable (the contract test runs Codex)."""
    add(home, "kr", "codex", OURS, "--key", "kr-entry")
    add(home, "ev", "codex", OURS, "--key-env", "GWA_KEY")
    for name in order:
        done = cli(home, "profile", "use", name, env=KEYRING_OK)
        assert done.returncode == 0, done.stderr
    for name in order:
        table = _merged(home, name)
        assert "auth" in table and "env_key" not in table, (name, table)
    assert _merged(home, "ev")["auth"]["args"][-1] == "GWA_KEY"  # type: ignore[index]

"""New-user defect 19: messages that read wrong, name a placeholder instead of the real profile
or key, hide a harmless path, or leave out what the user needs (a removed active profile, how
long a probe waited). Through the CLI, with the real Secret Service keyring and the embedded
provider."""

from __future__ import annotations

import json
import secrets as pysecrets
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import sim_server
from tests.new_user_helpers import add, cli, home, one_line

pytestmark = pytest.mark.usefixtures("secret_service")
__all__ = ["home"]  # the fixture, shared


@pytest.fixture
def keyed(home: Path) -> Iterator[tuple[Path, str, str, str]]:
    """A provider that wants one key, and a keyring entry holding another one."""
    wanted, wrong = "sk-right-" + pysecrets.token_hex(6), "sk-wrong-" + pysecrets.token_hex(6)
    name = "nu19-" + pysecrets.token_hex(4)
    assert cli(home, "key", "set", name, stdin=wrong).returncode == 0
    with sim_server("--require-key-env", "SIMKEY", env={"SIMKEY": wanted}) as url:
        yield home, url, name, wanted
    cli(home, "key", "delete", name)


def test_19_terminal_token_warning_reads_as_a_sentence(home: Path) -> None:
    add(home, "c", "claude", "https://gw.example", "--key", "k")
    done = cli(home, "profile", "use", "c", "--dry-run", env={"ANTHROPIC_AUTH_TOKEN": "x"})
    assert "in this terminal's environment, ANTHROPIC_AUTH_TOKEN is set (…):" in done.stderr
    assert "environment has" not in done.stderr


def test_19_rejected_key_hint_names_the_profiles_keyring_entry(
    keyed: tuple[Path, str, str, str],
) -> None:
    home, url, key_name, _ = keyed
    add(home, "s", "sdk", url, "--key", key_name, "--model", "sim-good")
    done = cli(home, "profile", "test", "s")
    assert done.returncode == 1
    assert f"HTTP 401); `judgeaudit key set {key_name}` stores the right one" in done.stdout
    assert "NAME" not in done.stdout


def test_19_rejected_key_from_a_variable_names_the_variable(
    keyed: tuple[Path, str, str, str],
) -> None:
    home, url, _, _ = keyed
    add(home, "e", "sdk", url, "--key-env", "NU19_KEY")
    done = cli(home, "profile", "test", "e", env={"NU19_KEY": "sk-wrong-value-1234"})
    assert done.returncode == 1 and "put the right one in $NU19_KEY" in done.stdout
    assert "sk-wrong-value" not in done.stdout


def test_19_no_model_hint_names_the_profile(keyed: tuple[Path, str, str, str]) -> None:
    home, url, _, wanted = keyed
    add(home, "nomodel", "sdk", url, "--key-env", "NU19_RIGHT")
    done = cli(home, "profile", "test", "nomodel", env={"NU19_RIGHT": wanted})
    assert "set one (`judgeaudit profile edit nomodel --model ID`)" in done.stdout
    assert "NAME" not in done.stdout


def test_19_provider_table_refusal_names_the_profile(home: Path) -> None:
    add(home, "my-codex", "codex", "http://127.0.0.1:4242/v1", "--key", "k")
    config = home / "codex" / "config.toml"
    config.write_text('[model_providers.local-4242]\nname = "mine"\nbase_url = "x"\n')
    before = config.read_bytes()
    done = cli(home, "profile", "use", "my-codex")
    assert done.returncode == 2
    assert "`judgeaudit profile edit my-codex --option provider_id=OTHER`" in one_line(done)
    assert config.read_bytes() == before


def test_19_api_key_helper_path_is_shown_and_a_key_inside_it_masked(home: Path) -> None:
    secret = "sk-HELPERsecret9876"
    helper = f"/home/me/bin/key-helper.sh --k {secret}"
    settings = home / "claude" / "settings.json"
    settings.write_text(json.dumps({"apiKeyHelper": helper}) + "\n")
    original = settings.read_bytes()
    add(home, "c", "claude", "https://gw.example", "--key", "k")
    preview = cli(home, "profile", "use", "c", "--dry-run")
    assert 'replaces your value apiKeyHelper = "/home/me/bin/key-helper.sh --k …9876"' in (
        preview.stdout
    )
    assert '-{"apiKeyHelper": "/home/me/bin/key-helper.sh --k …9876"}' in preview.stdout
    assert cli(home, "profile", "use", "c").returncode == 0
    doctor = cli(home, "profile", "doctor", "claude").stdout
    assert "key print k" in doctor
    off = cli(home, "profile", "off", "claude")
    assert off.returncode == 0 and "/home/me/bin/key-helper.sh --k …9876" in off.stdout
    for text in (preview.stdout, preview.stderr, off.stdout, off.stderr, doctor):
        assert secret not in text
    assert settings.read_bytes() == original
    held = [p for p in (home / "cfg").rglob("*") if p.is_file() and secret in p.read_text()]
    assert held == []  # no backup holds the key inside the helper command
    first = cli(home, "profile", "backups").stdout.split()[0]
    assert cli(home, "profile", "use", "c").returncode == 0
    assert cli(home, "profile", "restore", first).returncode == 0
    assert settings.read_bytes() == original  # the helper, key and all, from the keyring


def test_19_removing_the_active_profile_says_what_stays(home: Path) -> None:
    settings = home / "claude" / "settings.json"
    settings.write_text('{"theme": "dark"}\n')
    original = settings.read_bytes()
    add(home, "r-claude", "claude", "https://gw.example", "--key", "k")
    assert cli(home, "profile", "use", "r-claude").returncode == 0
    removed = cli(home, "profile", "remove", "r-claude")
    assert removed.returncode == 0
    assert "`judgeaudit profile off claude` gives you your own values back" in one_line(removed)
    doctor = cli(home, "profile", "doctor", "claude").stdout
    assert "judgeaudit profile in the user file: r-claude (removed since;" in doctor
    assert cli(home, "profile", "off", "claude").returncode == 0
    assert settings.read_bytes() == original
    add(home, "other", "claude", "https://gw.example", "--key", "k")
    quiet = cli(home, "profile", "remove", "other")
    assert quiet.returncode == 0 and quiet.stderr == ""


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


def test_19_probe_timeout_says_how_long_it_waited(home: Path, silent_port: int) -> None:
    url = f"http://127.0.0.1:{silent_port}/v1"
    add(home, "slow", "sdk", url, "--key-env", "K", "--model", "m")
    done = cli(home, "profile", "test", "slow", "--timeout", "0.5", env={"K": "sk-anything-1"})
    assert done.returncode == 1
    assert "GET /models: no answer within 0.5 s" in done.stdout
    assert "chat completion with m: no answer within 0.5 s" in done.stdout


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_19_probe_timeout_must_be_a_positive_number(home: Path, value: str) -> None:
    add(home, "p", "sdk", "http://127.0.0.1:9/v1", "--key-env", "K")
    done = cli(home, "profile", "test", "p", "--timeout", value, env={"K": "sk-anything-1"})
    assert done.returncode == 2 and "--timeout" in one_line(done)


def test_19_empty_model_hint_is_advice_that_works(home: Path) -> None:
    """It used to say `profile edit NAME --model ''`: a placeholder, and edit cannot load a file
    that fails this check, nor a profile that `profile add` is refusing to create."""
    (home / "cfg" / "profiles").mkdir()
    (home / "cfg" / "profiles" / "hand.toml").write_text(
        'name = "hand"\napp = "sdk"\nbase_url = "https://h.example/v1"\nmodel = ""\nkey = "k"\n'
    )
    listed = cli(home, "profile", "list")
    assert "hand.toml: model: empty; give a model id, or leave the model out (no `model` line" in (
        listed.stderr
    )
    added = cli(home, "profile", "add", "n3", "--app", "sdk", "--base-url", "https://a.b/v1",
                "--model", "", "--key", "k")  # fmt: skip
    assert added.returncode == 2 and "no --model on the command line" in one_line(added)
    assert "NAME" not in listed.stderr + added.stderr

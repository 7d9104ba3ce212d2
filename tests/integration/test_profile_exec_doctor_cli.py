"""The defects a new-user tester found in profiles, exec, doctor, import and the bridge, each
as the user met it: through the CLI, with the real Secret Service keyring. The cases that
involve Codex or Claude Code themselves are in ``tests/contract/test_tools_beside_a_switch.py``."""

from __future__ import annotations

import json
import os
import secrets as pysecrets
import signal
from pathlib import Path

import pytest

from tests.cli_helpers import world_env
from tests.integration.test_profile_bad_input import snapshot
from tests.new_user_helpers import add, cli, home, one_line, unique

pytestmark = pytest.mark.usefixtures("secret_service")
__all__ = ["home"]  # the fixture, shared


# --- 3: a base URL's query string is never printed --------------------------------------------


def test_3_query_string_secrets_never_echoed(home: Path) -> None:
    secret = "sk-QSECRET2222"
    added = cli(
        home,
        "profile",
        "add",
        "x",
        "--app",
        "sdk",
        "--base-url",
        f"https://h.example/v1?utm_source={secret}",
        "--key",
        "k",
    )
    assert added.returncode == 2 and "query string" in one_line(added)
    assert secret not in added.stdout + added.stderr
    (home / "cfg" / "profiles").mkdir()
    (home / "cfg" / "profiles" / "hand.toml").write_text(
        f'name = "hand"\napp = "sdk"\nbase_url = "https://h.example/v1?t={secret}"\nkey = "k"\n'
    )
    listed = cli(home, "profile", "list")
    assert listed.returncode == 0 and "hand.toml" in listed.stderr
    assert secret not in listed.stdout + listed.stderr
    imported = home / "imp.json"
    imported.write_text(
        json.dumps(
            {
                "profiles": [
                    {
                        "name": "gw",
                        "app": "sdk",
                        "base_url": "https://gw.example.com/v1?utm_source=abc&api_key=sk-impSECRET3131",
                    }
                ]
            }
        )
    )
    done = cli(home, "profile", "import", str(imported))
    assert "skipped gw" in done.stdout and "query string" in done.stdout
    assert "impSECRET" not in done.stdout + done.stderr


# --- 4, 5: a profile file that is not UTF-8, or not a regular file ------------------------------


def test_4_non_utf8_profile_file_is_named_not_a_traceback(home: Path) -> None:
    (home / "cfg" / "profiles").mkdir()
    (home / "cfg" / "profiles" / "h9.toml").write_bytes(b"\xff\xfe")
    for args in (("profile", "list"), ("key", "status")):
        done = cli(home, *args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert "h9.toml" in done.stderr and "not UTF-8" in done.stderr
    shown = cli(home, "profile", "show", "h9")
    assert shown.returncode == 2 and "h9.toml" in one_line(shown)


def test_5_fifos_never_hang_doctor_or_list(home: Path) -> None:
    os.mkfifo(home / "claude" / "settings.json")
    os.mkfifo(home / "codex" / "config.toml")
    (home / "cfg" / "profiles").mkdir()
    os.mkfifo(home / "cfg" / "profiles" / "pipe.toml")
    doctor = cli(home, "profile", "doctor")  # the timeout of cli() fails the test on a hang
    assert doctor.returncode == 0, doctor.stderr
    assert doctor.stdout.count("is a FIFO") == 2
    listed = cli(home, "profile", "list")
    assert listed.returncode == 0 and "pipe.toml" in listed.stderr and "FIFO" in listed.stderr
    status = cli(home, "key", "status")
    assert status.returncode == 0 and "pipe.toml" in status.stderr


# --- 14: profile add refuses nonsense ---------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "expect"),
    [
        (("--key", "k", "--price-in", "nan"), "price_in: must be a finite"),
        (("--key", "k", "--price-out", "1e400"), "price_out: must be a finite"),
        (("--key", "k", "--option", "env_prefix=bad prefix"), "options.env_prefix"),
        (("--key", "k", "--model", ""), "model: empty"),
        (("--key", "k", "--model", "line\nbreak"), "model: "),
        ((), "give --key NAME"),
    ],
    ids=["nan", "inf", "env-prefix", "empty-model", "newline-model", "no-key"],
)
def test_14_profile_add_refuses_nonsense(home: Path, extra: tuple[str, ...], expect: str) -> None:
    before = snapshot(home)
    done = cli(
        home, "profile", "add", "x", "--app", "sdk", "--base-url", "https://a.example/v1", *extra
    )
    assert done.returncode == 2 and expect in one_line(done)
    assert snapshot(home) == before


def test_14_hand_written_nan_price_is_refused(home: Path) -> None:
    (home / "cfg" / "profiles").mkdir()
    (home / "cfg" / "profiles" / "n.toml").write_text(
        'name = "n"\napp = "sdk"\nbase_url = "https://a.example/v1"\nkey = "k"\nprice_in = nan\n'
    )
    listed = cli(home, "profile", "list")
    assert "n.toml" in listed.stderr and "price_in" in listed.stderr


def test_14_edit_with_an_empty_model_clears_it(home: Path) -> None:
    add(home, "x", "sdk", "https://a.example/v1", "--key", "k", "--model", "m1")
    done = cli(home, "profile", "edit", "x", "--model", "")
    assert done.returncode == 0, done.stderr
    assert "model" not in cli(home, "profile", "show", "x").stdout


def test_edit_keeps_the_fields_it_has_no_flag_for(home: Path) -> None:
    """`profile edit` used to rebuild the profile from its flags only, dropping a hand-written
    description and the rpm/tpm limits an audit paces itself by."""
    (home / "cfg" / "profiles").mkdir()
    (home / "cfg" / "profiles" / "d.toml").write_text(
        'name = "d"\napp = "sdk"\ndescription = "火山方舟 gateway"\nbase_url = "https://a.example/v1"'
        '\nkey = "k"\nrpm = 60.0\ntpm = 9000.0\n',
        encoding="utf-8",
    )
    done = cli(home, "profile", "edit", "d", "--model", "m2")
    assert done.returncode == 0, done.stderr
    shown = cli(home, "profile", "show", "d").stdout
    assert 'description = "火山方舟 gateway"' in shown
    assert "rpm = 60.0" in shown and "tpm = 9000.0" in shown and 'model = "m2"' in shown


# --- 18: minor input handling ------------------------------------------------------------------


def test_18_base_url_with_a_trailing_space_is_taken_without_it(home: Path) -> None:
    add(home, "sp", "sdk", "https://a.example/v1 ", "--key", "k")
    assert 'base_url = "https://a.example/v1"' in cli(home, "profile", "show", "sp").stdout
    inner = cli(home, "profile", "add", "in", "--app", "sdk", "--base-url", "https://a.exa mple/v1")
    assert inner.returncode == 2 and "white space" in one_line(inner)


# --- 15: a key on the command line is refused, never echoed, never stored ----------------------


def test_15_key_set_with_the_key_on_the_command_line(home: Path) -> None:
    name = unique("e5")
    done = cli(home, "key", "set", name, "sk-ARGV9999", stdin="sk-stdin-value-1234\n")
    assert done.returncode == 2 and "never from the command line" in one_line(done)
    assert "ARGV9999" not in done.stdout + done.stderr and not done.stdout
    assert cli(home, "key", "print", name).returncode == 1  # nothing stored


@pytest.mark.parametrize(
    "args",
    [
        ("key", "set", "sk-ARGV9999"),  # the key given as the name
        ("key", "print", "sk-ARGV9999"),
        ("key", "set", "sk-argv9999lower"),  # a valid-looking name that is a key
        (
            "profile",
            "add",
            "x",
            "--app",
            "sdk",
            "--base-url",
            "https://a.b/v1",
            "--key",
            "sk-argv9999lower",
        ),
        (
            "profile",
            "add",
            "x",
            "--app",
            "sdk",
            "--base-url",
            "https://a.b/v1",
            "--api-key",
            "sk-ARGV9999",
        ),
        (
            "profile",
            "add",
            "x",
            "--app",
            "sdk",
            "--base-url",
            "https://a.b/v1",
            "--option",
            "sk-ARGV9999",
        ),
        ("profile", "use", "taotoken-sdk", "sk-ARGV9999"),
        ("profile", "sk-ARGV9999"),
        ("profile", "off", "sk-ARGV9999"),
        ("profile", "restore", "sk-ARGV9999"),
        ("env", "taotoken-sdk", "sk-ARGV9999"),
        ("env", "taotoken-sdk", "--shell", "sk-ARGV9999"),
        ("bridge", "taotoken-sdk", "--token", "sk-ARGV9999"),
        ("bridge", "taotoken-sdk", "--port", "sk-ARGV9999"),
        ("exec", "sk-ARGV9999", "--", "true"),
    ],
    ids=lambda a: "-".join(w for w in a if not w.startswith(("sk-", "https")))[:40],
)
def test_15_no_command_echoes_a_key_from_argv(home: Path, args: tuple[str, ...]) -> None:
    before = snapshot(home)
    done = cli(home, *args, stdin="")
    assert done.returncode == 2, done.stderr
    one_line(done)
    assert "ARGV9999" not in done.stdout + done.stderr.upper(), done.stderr
    assert snapshot(home) == before


# --- 16: exec passes on a signal death the way a shell does (128 + N) ------------------------


@pytest.mark.parametrize(("signal_name", "code"), [("TERM", 143), ("PIPE", 141), ("INT", 130)])
def test_16_exec_exit_code_of_a_signalled_child(home: Path, signal_name: str, code: int) -> None:
    add(home, "a-sdk", "sdk", "http://127.0.0.1:9/v1", "--key-env", "LOCAL_SIM_KEY")
    done = cli(
        home,
        "exec",
        "a-sdk",
        "--",
        "sh",
        "-c",
        f"kill -{signal_name} $$",
        env={"LOCAL_SIM_KEY": "sk-local-sim-0000"},
    )
    assert done.returncode == code, done.stderr


# --- 17: the bridge logs every request, /v1/models too ---------------------------------------


def test_17_bridge_logs_models_requests(home: Path) -> None:
    import urllib.request

    from tests.bridge_helpers import served

    secret = "sk-bridge-log-" + pysecrets.token_hex(6)
    key = unique("brlog")
    env = world_env(home)
    assert cli(home, "key", "set", key, stdin=secret).returncode == 0
    try:
        sim = ("sim", "serve", "--port", "0", "--apis", "chat")
        with served(*sim) as (upstream, _):
            add(home, "gw", "codex", upstream, "--key", key, "--option", "bridge=chat")
            with served("bridge", "gw", "--port", "0", env=env) as (bridge, proc):
                request = urllib.request.Request(
                    bridge + "/v1/models", headers={"Authorization": f"Bearer {secret}"}
                )
                with urllib.request.urlopen(request, timeout=30) as answer:
                    assert answer.status == 200
                proc.send_signal(signal.SIGINT)  # stop it, then read all it logged
                proc.wait(timeout=30)
                assert proc.stderr is not None
                log = proc.stderr.read()
        assert "GET /v1/models -> 200" in log, log
        assert secret not in log
    finally:
        cli(home, "key", "delete", key)


def test_18_bridge_on_a_bad_host_is_one_line_without_the_loopback_warning(home: Path) -> None:
    add(home, "gw", "codex", "http://127.0.0.1:9/v1", "--key-env", "GWKEY")
    done = cli(home, "bridge", "gw", "--host", "999.1.1.1", env={"GWKEY": "sk-gw-0000000"})
    assert done.returncode == 2 and "cannot listen on 999.1.1.1" in one_line(done)

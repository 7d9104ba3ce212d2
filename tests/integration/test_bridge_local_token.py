"""A globally switched bridged profile gives its tool a local token, never the upstream key:
what the switched helper prints, what a program holding ``bridge_port`` while the bridge is
stopped receives (the embedded server plays that program and fingerprints every credential it
gets), what the standalone bridge accepts and sends upstream. Secret Service: run under
scripts/with-keyring.sh."""

from __future__ import annotations

import json
import secrets as pysecrets
import shlex
import subprocess
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.bridge_helpers import key_fingerprint, post, request_log, served
from tests.cli_helpers import cli, cli_ok, stored_keys, tool_env
from tests.helpers import free_port

pytestmark = pytest.mark.usefixtures("secret_service")

MESSAGE = {"model": "sim-chat", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}


@dataclass
class Home:
    env: dict[str, str]
    tmp: Path
    key: str
    key_name: str
    upstream: str
    upstream_log: Path
    port: int

    def judgeaudit(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return cli(*args, env=self.env, whole_env=True, stdin=stdin, timeout=120)

    def add(self, name: str, app: str, port: int | None = None) -> None:
        cli_ok(
            "profile", "add", name, "--app", app, "--base-url", self.upstream,
            "--model", "sim-chat", "--key", self.key_name,
            "--option", "bridge=chat", "--option", f"bridge_port={port or self.port}",
            env=self.env, whole_env=True, timeout=120,
        )  # fmt: skip

    def run(self, argv: list[str]) -> str:
        """Run a helper command as the tool would (its stdout is what the tool sends)."""
        done = subprocess.run(
            argv, env=self.env, capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Home]:
    key = "sk-local-token-" + pysecrets.token_hex(12)
    key_name = "lt-" + pysecrets.token_hex(5)
    env = tool_env(tmp_path, SIMKEY=key)
    log = tmp_path / "upstream.jsonl"
    sim = ("sim", "serve", "--port", "0", "--apis", "chat", "--require-key-env", "SIMKEY")
    with (
        served(*sim, "--request-log", str(log), env={"SIMKEY": key}) as (url, _),
        stored_keys(env, {key_name: key}),
    ):
        yield Home(env, tmp_path, key, key_name, url, log, free_port())


def _claude_helper(home: Home) -> list[str]:
    settings = json.loads((home.tmp / "claude" / "settings.json").read_text())
    return shlex.split(settings["apiKeyHelper"])


def _codex_auth(home: Home) -> list[str]:
    config = tomllib.loads((home.tmp / "codex" / "config.toml").read_text())
    (table,) = config["model_providers"].values()
    return [table["auth"]["command"], *table["auth"]["args"]]


def test_the_switched_tools_print_a_local_token_and_a_squatter_gets_only_that(home: Home) -> None:
    home.add("lt-claude", "claude")
    home.add("lt-codex", "codex", free_port())  # switched on at once: its own bridge port
    for name in ("lt-claude", "lt-codex"):
        done = home.judgeaudit("profile", "use", name)
        assert done.returncode == 0, done.stderr
    claude_token = home.run(_claude_helper(home))
    codex_token = home.run(_codex_auth(home))
    assert home.key not in claude_token + codex_token
    assert claude_token.startswith("ja-local-") and codex_token.startswith("ja-local-")
    assert claude_token != codex_token  # one token per profile
    files = (home.tmp / "claude" / "settings.json").read_text()
    files += (home.tmp / "codex" / "config.toml").read_text()
    assert claude_token not in files and codex_token not in files  # in the keyring only
    # The bridge is stopped and another program holds the port: it gets the token, not the key.
    squat_log = home.tmp / "squatter.jsonl"
    squat = ("sim", "serve", "--port", str(home.port), "--request-log", str(squat_log))
    with served(*squat):
        at = f"http://127.0.0.1:{home.port}/v1/messages"
        assert post(at, MESSAGE, home.run(_claude_helper(home)))[0] == 200  # as Claude Code
    (line,) = request_log(squat_log)
    assert line["keys_sha256"] == [key_fingerprint(claude_token)]
    assert key_fingerprint(home.key) not in json.dumps(line)


def test_the_bridge_takes_the_token_sends_the_key_and_refuses_others(home: Home) -> None:
    home.add("lt-gw", "claude")
    assert home.judgeaudit("profile", "use", "lt-gw").returncode == 0
    token = home.run(_claude_helper(home))
    with served("bridge", "lt-gw", env=home.env) as (url, proc):
        assert url == f"http://127.0.0.1:{home.port}"
        status, _, body = post(url + "/v1/messages", MESSAGE, token)
        assert status == 200, body
        assert request_log(home.upstream_log)[-1]["key_sha256"] == key_fingerprint(home.key)
        wrong, _, body = post(url + "/v1/messages", MESSAGE, "ja-local-" + "x" * 43)
        assert wrong == 401 and b"local token" in body
        # A new key (key set) is a new token: the bridge takes it without a restart, within
        # the second it trusts a token read from the keyring.
        said = home.judgeaudit("key", "set", home.key_name, stdin=home.key)
        assert "new local bridge token for lt-gw" in said.stdout
        renewed = home.run(_claude_helper(home))
        assert renewed != token
        time.sleep(1.1)
        assert post(url + "/v1/messages", MESSAGE, token)[0] == 401
        assert post(url + "/v1/messages", MESSAGE, renewed)[0] == 200
        # A tool switched by an older judgeaudit sends the real key: it works, and is told.
        assert post(url + "/v1/messages", MESSAGE, home.key)[0] == 200
        proc.send_signal(2)
        proc.wait(timeout=30)
        assert proc.stderr is not None
        log = proc.stderr.read()
    assert "sent profile lt-gw's real key, not its local token" in log
    assert "`judgeaudit profile use lt-gw` again" in log
    assert home.key not in log and token not in log and renewed not in log


def test_removing_the_profile_removes_its_token(home: Home) -> None:
    home.add("lt-gone", "codex")
    assert home.judgeaudit("profile", "use", "lt-gone").returncode == 0
    assert home.judgeaudit("key", "bridge-token", "lt-gone").returncode == 0
    assert home.judgeaudit("profile", "off", "codex").returncode == 0
    assert home.judgeaudit("profile", "remove", "lt-gone").returncode == 0
    done = home.judgeaudit("key", "bridge-token", "lt-gone")
    assert done.returncode == 1 and done.stdout == ""
    assert "no local bridge token for profile lt-gone" in done.stderr


def test_doctor_names_a_switch_that_still_sends_the_real_key(home: Home) -> None:
    """A switch written before the local token ran ``key print KEY`` for Claude Code: doctor
    says its tool still sends the real key to the port, and what makes it send the token."""
    home.add("lt-old", "claude")
    assert home.judgeaudit("profile", "use", "lt-old").returncode == 0
    settings = home.tmp / "claude" / "settings.json"
    assert "real key" not in home.judgeaudit("profile", "doctor", "claude").stdout
    data = json.loads(settings.read_text())
    data["apiKeyHelper"] = shlex.join([*_claude_helper(home)[:3], "key", "print", home.key_name])
    settings.write_text(json.dumps(data))  # what the older version wrote
    done = home.judgeaudit("profile", "doctor", "claude")
    assert (
        f"claude: bridge: {settings} still has claude send this profile's real key to "
        f"http://127.0.0.1:{home.port} (switched by an older judgeaudit); `judgeaudit profile "
        "use lt-old` makes it send the local token instead"
    ) in done.stdout
    assert home.judgeaudit("profile", "use", "lt-old").returncode == 0
    assert "real key" not in home.judgeaudit("profile", "doctor", "claude").stdout


def _refusal(url: str, token: str) -> str:
    status, _, body = post(url + "/v1/messages", MESSAGE, token)
    assert status == 401, body
    return str(json.loads(body)["error"]["message"])


def test_a_running_bridge_brings_back_no_deleted_key_token_or_profile(home: Home) -> None:
    """The bridge re-read its token with ``create`` on, once a second: after ``key delete`` (or
    ``profile remove``) one request made a new token, and the switched Claude Code worked on
    (a review, twentieth session). Now it refuses, says why once, and makes nothing."""
    home.add("lt-del", "claude")
    assert home.judgeaudit("profile", "use", "lt-del").returncode == 0
    with served("bridge", "lt-del", env=home.env) as (url, proc):
        assert post(url + "/v1/messages", MESSAGE, home.run(_claude_helper(home)))[0] == 200
        assert home.judgeaudit("key", "delete", home.key_name, "--force").returncode == 0
        time.sleep(1.1)
        for _ in range(2):  # said on the log once
            assert _refusal(url, "ja-local-anything") == (
                "profile lt-del has no key now, so its bridge refuses every caller: run "
                f"`judgeaudit key set {home.key_name}` (taken within a second)"
            )
        assert home.judgeaudit("key", "bridge-token", "lt-del").returncode == 1  # none made
        # What it says brings it back: key set makes a new token, taken within a second.
        assert home.judgeaudit("key", "set", home.key_name, stdin=home.key).returncode == 0
        time.sleep(1.1)
        token = home.run(_claude_helper(home))
        assert post(url + "/v1/messages", MESSAGE, token)[0] == 200
        # Moved to another gateway: this bridge never sends the profile's key to the old one.
        moved = home.judgeaudit("profile", "edit", "lt-del", "--base-url", "http://127.0.0.1:9/v1")
        assert moved.returncode == 0, moved.stderr
        time.sleep(1.1)
        assert _refusal(url, token) == (
            f"profile lt-del's base_url is not {home.upstream} any more, so its bridge refuses "
            "every caller: restart `judgeaudit bridge lt-del`"
        )
        assert home.judgeaudit("profile", "off", "claude").returncode == 0
        assert home.judgeaudit("profile", "remove", "lt-del").returncode == 0
        time.sleep(1.1)
        assert _refusal(url, home.key) == (
            "profile lt-del was removed, so its bridge refuses every caller: stop this bridge "
            "(nothing uses it)"
        )
        done = home.judgeaudit("key", "bridge-token", "lt-del")
        assert done.returncode == 1 and "no local bridge token" in done.stderr
        proc.send_signal(2)
        proc.wait(timeout=30)
        assert proc.stderr is not None
        log = proc.stderr.read()
    assert log.count("profile lt-del has no key now") == 1
    assert log.count("profile lt-del was removed") == 1
    assert home.key not in log


def test_a_key_set_while_the_bridge_runs_is_sent_upstream_within_a_second(
    home: Home,
) -> None:
    """The bridge kept the key it started with, so after ``key set`` (which said switched tools
    take it at once) the upstream still got the old one (a review, twentieth session). The
    upstream logs a fingerprint of each key it gets, never the key."""
    old, new = ("sk-rotate-" + x * 4 + pysecrets.token_hex(6) for x in "12")
    log = home.tmp / "rotating.jsonl"
    with served("sim", "serve", "--port", "0", "--apis", "chat", "--request-log", str(log)) as (
        upstream,
        _,
    ):
        cli_ok(
            "profile", "add", "lt-rot", "--app", "claude", "--base-url", upstream,
            "--model", "sim-chat", "--key", home.key_name, "--option", "bridge=chat",
            "--option", f"bridge_port={home.port}", env=home.env, whole_env=True, timeout=120,
        )  # fmt: skip
        assert home.judgeaudit("key", "set", home.key_name, stdin=old).returncode == 0
        assert home.judgeaudit("profile", "use", "lt-rot").returncode == 0
        with served("bridge", "lt-rot", env=home.env) as (url, proc):
            assert post(url + "/v1/messages", MESSAGE, home.run(_claude_helper(home)))[0] == 200
            said = home.judgeaudit("key", "set", home.key_name, stdin=new).stdout
            assert "a running bridge takes it and the new key within a second" in said
            time.sleep(1.1)
            assert post(url + "/v1/messages", MESSAGE, home.run(_claude_helper(home)))[0] == 200
            proc.send_signal(2)
            proc.wait(timeout=30)
            assert proc.stderr is not None
            said = proc.stderr.read()
    sent = [line["key_sha256"] for line in request_log(log)]
    assert sent == [key_fingerprint(old), key_fingerprint(new)]
    assert old not in said and new not in said


def test_a_refused_key_delete_leaves_the_bridge_tokens(home: Home) -> None:
    """`key delete K` of a key no longer stored refused with "nothing was deleted", having
    dropped the local bridge token of each bridged profile using K (a twenty-eighth-session
    review): the switched tool's helper then failed. Every refusal is said before anything is
    deleted; a refusal for an active profile keeps the token too."""
    home.add("lt-kd", "claude")
    assert home.judgeaudit("profile", "use", "lt-kd").returncode == 0
    token = home.judgeaudit("key", "bridge-token", "lt-kd").stdout
    assert token.startswith("ja-local-")
    active = home.judgeaudit("key", "delete", home.key_name)  # lt-kd reads it: refused
    assert active.returncode == 2 and "nothing was deleted" in active.stderr
    assert home.judgeaudit("key", "bridge-token", "lt-kd").stdout == token
    # The key goes (while lt-kd uses another), then lt-kd names it again: not stored.
    assert home.judgeaudit("profile", "edit", "lt-kd", "--key", "lt-other").returncode == 0
    assert home.judgeaudit("key", "delete", home.key_name).returncode == 0
    assert home.judgeaudit("profile", "edit", "lt-kd", "--key", home.key_name).returncode == 0
    assert home.judgeaudit("key", "bridge-token", "lt-kd").stdout == token
    gone = home.judgeaudit("key", "delete", home.key_name, "--force")
    assert gone.returncode == 1, gone.stderr
    assert f"no stored key {home.key_name}; nothing was deleted" in gone.stderr
    assert home.judgeaudit("key", "bridge-token", "lt-kd").stdout == token

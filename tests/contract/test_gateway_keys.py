"""Another gateway's key never goes to the switched-in one, with the real newest Claude Code (npm)
against two loopback gateways whose request logs fingerprint every credential they were sent:
a key in ``ANTHROPIC_CUSTOM_HEADERS`` (kept out by the switch, left out by exec and a binding, put back
by ``off``) while the variable's other headers still reach the switched-in gateway; a project's own ``ANTHROPIC_BASE_URL`` gets the switched profile's key, as the
warning (doctor, ``use`` run there) says by keyring entry and host, and exec keeps it away."""

from __future__ import annotations

import contextlib
import json
import secrets as pysecrets
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.bridge_helpers import key_fingerprint, request_log, served
from tests.cli_helpers import JUDGEAUDIT, cli, stored_keys, tool, tool_env
from tests.contract.test_real_tools import npm_bin

pytestmark = pytest.mark.usefixtures("secret_service")


@dataclass
class World:
    env: dict[str, str]
    work: Path
    url_a: str
    url_b: str
    log_a: Path
    log_b: Path
    secret_a: str
    secret_b: str
    entry_a: str

    def ja(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return cli(*args, env=self.env, cwd=cwd or self.work, timeout=240, whole_env=True)

    def claude(self, cwd: Path | None = None, via: str | None = None) -> None:
        head = [*JUDGEAUDIT, "exec", via, "--"] if via else []
        tool([*head, npm_bin("claude"), "-p", "hi"], env=self.env, cwd=cwd or self.work)

    def user_file(self) -> Path:
        return Path(self.env["CLAUDE_CONFIG_DIR"]) / "settings.json"


def _sent(log: Path, secret: str) -> list[dict[str, object]]:
    """The requests in ``log`` that carried ``secret``, as key or in any credential header."""
    fp = key_fingerprint(secret)
    return [
        line
        for line in request_log(log)
        if fp in line["keys_sha256"] or fp in dict(line.get("headers_sha256") or {}).values()
    ]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    secret_a = "sk-gwa-" + pysecrets.token_hex(10)
    secret_b = "sk-gwb-" + pysecrets.token_hex(10)
    (tmp_path / "tmp").mkdir()
    (tmp_path / "work").mkdir()
    env = tool_env(
        tmp_path,
        leave_out=("ANTHROPIC_", "CLAUDE_"),
        TMPDIR=str(tmp_path / "tmp"),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    log_a, log_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    sim = ("sim", "serve", "--port", "0", "--require-key-env", "SIMKEY", "--request-log")
    entries = ("gk-a-" + pysecrets.token_hex(4), "gk-b-" + pysecrets.token_hex(4))
    with (
        served(*sim, str(log_a), env={"SIMKEY": secret_a}) as (url_a, _),
        served(*sim, str(log_b), env={"SIMKEY": secret_b}) as (url_b, _),
        stored_keys(env, dict(zip(entries, (secret_a, secret_b), strict=True))),
    ):
        url_a, url_b = url_a.removesuffix("/v1"), url_b.removesuffix("/v1")
        here = World(
            env, tmp_path / "work", url_a, url_b, log_a, log_b, secret_a, secret_b, entries[0]
        )
        for name, url, key in (("a-claude", url_a, entries[0]), ("b-claude", url_b, entries[1])):
            added = here.ja(
                "profile", "add", name, "--app", "claude", "--base-url", url, "--model",
                "sim-chat", "--key", key,
            )  # fmt: skip
            assert added.returncode == 0, added.stderr
        yield here


def test_a_key_in_custom_headers_stays_with_its_gateway(world: World, tmp_path: Path) -> None:
    helper = tmp_path / "keyA"
    helper.write_text(world.secret_a)
    helper.chmod(0o600)
    user = world.user_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    own = {
        "env": {
            "ANTHROPIC_BASE_URL": world.url_a,
            "ANTHROPIC_CUSTOM_HEADERS": f"x-gateway-key: {world.secret_a}",
            "ANTHROPIC_MODEL": "sim-chat",
        },
        "apiKeyHelper": f"cat {helper}",
    }
    user.write_text(json.dumps(own, separators=(",", ":")) + "\n")
    original = user.read_bytes()
    world.claude()  # the user's own set-up: Claude Code does send the header (the log sees it)
    seen = [line.get("headers_sha256") for line in request_log(world.log_a)]
    # (beside Claude Code's own x-claude-code-session-id, a "session" header by the same rule)
    assert any((s or {}).get("x-gateway-key") == key_fingerprint(world.secret_a) for s in seen), (
        seen
    )
    world.claude(via="b-claude")  # exec's layer blanks the header
    used = world.ja("profile", "use", "b-claude")
    assert used.returncode == 0, used.stderr
    assert world.secret_a not in used.stdout + used.stderr
    assert "ANTHROPIC_CUSTOM_HEADERS" in used.stdout  # the removal is shown, masked
    backups = Path(world.env["JUDGEAUDIT_CONFIG_DIR"]) / "backups"
    for path in backups.iterdir():
        assert world.secret_a.encode() not in path.read_bytes(), path
    world.claude()
    assert _sent(world.log_b, world.secret_a) == []  # never at B, neither via exec nor the switch
    assert any(
        line["keys_sha256"] == [key_fingerprint(world.secret_b)]
        for line in request_log(world.log_b)
    )
    off = world.ja("profile", "off", "claude")
    assert off.returncode == 0, off.stderr
    assert user.read_bytes() == original  # the header back, byte for byte


def test_the_other_custom_headers_still_reach_the_switched_in_gateway(world: World) -> None:
    user = world.user_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    headers = f"X-Org: acme\r\nx-gateway-key: {world.secret_a}\r\nX-Team: \u00e9quipe-2\r\n"
    user.write_text(json.dumps({"env": {"ANTHROPIC_CUSTOM_HEADERS": headers}}) + "\n")
    original = user.read_bytes()
    used = world.ja("profile", "use", "b-claude")
    assert used.returncode == 0, used.stderr
    assert world.secret_a not in used.stdout + used.stderr + user.read_text()
    world.claude()
    names = [set(line["header_names"]) for line in request_log(world.log_b)]
    assert names and all({"x-org", "x-team"} <= seen for seen in names), names
    assert not any("x-gateway-key" in seen for seen in names)
    assert _sent(world.log_b, world.secret_a) == []
    off = world.ja("profile", "off", "claude")
    assert off.returncode == 0, off.stderr
    assert user.read_bytes() == original


def test_a_projects_base_url_gets_the_key_as_the_warning_says(world: World, tmp_path: Path) -> None:
    log_p = tmp_path / "project-gateway.jsonl"  # any key works there: Claude Code gets answers
    with served("sim", "serve", "--port", "0", "--request-log", str(log_p)) as (url_p, _):
        project = world.work / "projX"
        (project / ".claude").mkdir(parents=True)
        url_p = url_p.removesuffix("/v1")
        layer = {"env": {"ANTHROPIC_BASE_URL": url_p}}
        (project / ".claude" / "settings.json").write_text(json.dumps(layer))
        assert world.ja("profile", "use", "a-claude").returncode == 0  # outside projX
        said = (
            f"sends profile a-claude's key (keyring entry '{world.entry_a}') to "
            f"{urlsplit(url_p).netloc}"
        )
        doctor = world.ja("profile", "doctor", "claude", cwd=project)
        assert said in doctor.stdout, doctor.stdout
        inside = world.ja("profile", "use", "a-claude", cwd=project)
        assert said in inside.stderr, inside.stderr
        world.claude(cwd=project)
        assert _sent(log_p, world.secret_a), "the warning said this gateway would get A's key"
        before = len(request_log(log_p))
        world.claude(cwd=project, via="a-claude")  # exec's layer outranks the project's file
        assert len(request_log(log_p)) == before
        assert _sent(world.log_a, world.secret_a)


def test_exec_and_a_binding_send_the_other_custom_headers_not_the_key(world: World) -> None:
    """exec's layer and a project binding sit above the user's file: they send its headers
    less the credential line (they used to blank the whole variable: no X-Org either)."""
    user = world.user_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    headers = f"X-Org: acme\nx-gateway-key: {world.secret_a}"
    user.write_text(json.dumps({"env": {"ANTHROPIC_CUSTOM_HEADERS": headers}}) + "\n")

    def names_at_b() -> list[set[str]]:
        return [set(line["header_names"]) for line in request_log(world.log_b)]

    world.claude(via="b-claude")
    assert names_at_b() and all("x-org" in seen for seen in names_at_b()), names_at_b()
    project = world.work / "projH"
    project.mkdir()
    bound = world.ja("profile", "use", "b-claude", "--project", str(project))
    assert bound.returncode == 0, bound.stderr
    local = (project / ".claude" / "settings.local.json").read_text()
    assert world.secret_a not in local
    before = len(request_log(world.log_b))
    world.claude(cwd=project)
    bound_names = names_at_b()[before:]
    assert bound_names and all("x-org" in seen for seen in bound_names), bound_names
    # the shell's own headers reach the command exec runs, less the credential line
    shell = {
        **world.env,
        "ANTHROPIC_CUSTOM_HEADERS": f"X-Team: t2\nAuthorization: {world.secret_a}",
    }
    user.write_text("{}\n")
    before = len(request_log(world.log_b))
    tool(
        [*JUDGEAUDIT, "exec", "b-claude", "--", npm_bin("claude"), "-p", "hi"],
        env=shell,
        cwd=world.work,
    )
    shell_names = names_at_b()[before:]
    assert shell_names and all("x-team" in seen for seen in shell_names), shell_names
    assert not any("x-gateway-key" in seen for seen in names_at_b())
    assert _sent(world.log_b, world.secret_a) == []


def test_off_after_a_hand_edited_base_url_sends_the_old_token_nowhere(world: World) -> None:
    """`off` after the user pointed ANTHROPIC_BASE_URL at another gateway by hand while switched
    put A's token and x-gateway-key header back beside B's URL: B's log saw them."""
    user = world.user_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    own = {
        "env": {
            "ANTHROPIC_AUTH_TOKEN": world.secret_a,
            "ANTHROPIC_BASE_URL": world.url_a,
            "ANTHROPIC_CUSTOM_HEADERS": f"x-gateway-key: {world.secret_a}",
            "ANTHROPIC_MODEL": "sim-chat",
        }
    }
    user.write_text(json.dumps(own, indent=2) + "\n")
    original = user.read_bytes()
    assert world.ja("profile", "use", "a-claude").returncode == 0
    user.write_text(user.read_text().replace(world.url_a, world.url_b))  # the hand edit (sed)
    off = world.ja("profile", "off", "claude")
    assert off.returncode == 0, off.stderr
    assert "holds back your env.ANTHROPIC_AUTH_TOKEN, env.ANTHROPIC_CUSTOM_HEADERS" in off.stdout
    assert world.secret_a not in off.stdout + off.stderr + user.read_text()
    with contextlib.suppress(subprocess.TimeoutExpired):  # before: 401 retries at B
        tool([npm_bin("claude"), "-p", "hi"], env=world.env, cwd=world.work, timeout=90)
    assert _sent(world.log_b, world.secret_a) == []
    user.write_text(user.read_text().replace(world.url_b, world.url_a))  # the URL set back
    assert world.ja("profile", "off", "claude").returncode == 0
    assert user.read_bytes() == original  # kept all along: all of it back


def test_a_shell_oauth_token_never_reaches_the_gateway(world: World) -> None:
    """A Claude subscription token in the shell (``CLAUDE_CODE_OAUTH_TOKEN``, from ``claude
    setup-token``) beside a switched or exec'd gateway profile: the gateway only ever sees the
    profile's key."""
    oauth = "sk-ant-oat01-" + pysecrets.token_hex(16)
    env = {**world.env, "CLAUDE_CODE_OAUTH_TOKEN": oauth}
    tool([*JUDGEAUDIT, "exec", "b-claude", "--", npm_bin("claude"), "-p", "hi"], env=env,
         cwd=world.work)  # fmt: skip
    used = world.ja("profile", "use", "b-claude")
    assert used.returncode == 0, used.stderr
    tool([npm_bin("claude"), "-p", "hi"], env=env, cwd=world.work)
    assert _sent(world.log_b, oauth) == []
    assert any(
        line["keys_sha256"] == [key_fingerprint(world.secret_b)]
        for line in request_log(world.log_b)
    )

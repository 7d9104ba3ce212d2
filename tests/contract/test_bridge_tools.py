"""Contract tests: the real Codex CLI and Claude Code complete through the bridge against an
embedded provider that only speaks Chat Completions (``sim serve --apis chat``), including one
tool-call round trip each; the provider's request log shows chat completions carrying the
keyring key and the profile's model."""

from __future__ import annotations

import json
import secrets as pysecrets
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.bridge_helpers import ReasoningUpstream, key_fingerprint, request_log, served
from tests.cli_helpers import JUDGEAUDIT, cli_ok, stored_keys, tool, tool_env
from tests.contract.test_real_tools import npm_bin
from tests.helpers import free_port

pytestmark = pytest.mark.usefixtures("secret_service")
MODEL = "sim-chat:latency_ms=1"
MARKER = "bridged file content 7f3a"


@dataclass
class World:
    env: dict[str, str]
    tmp: Path
    secret: str
    key_name: str
    log: Path
    upstream: str

    def judgeaudit(self, *args: str) -> subprocess.CompletedProcess[str]:
        return cli_ok(*args, env=self.env, whole_env=True, timeout=120)

    def add_bridged(
        self, name: str, app: str, *extra: str, base_url: str = "", model: str = MODEL
    ) -> None:
        """A profile that reaches the upstream through the bridge (Chat Completions)."""
        self.judgeaudit(
            "profile", "add", name, "--app", app, "--base-url", base_url or self.upstream,
            "--model", model, "--key", self.key_name, "--option", "bridge=chat", *extra,
        )  # fmt: skip

    def chat_requests(self) -> list[dict[str, object]]:
        return [r for r in request_log(self.log) if r["path"] == "/v1/chat/completions"]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    secret = "sk-bridge-contract-" + pysecrets.token_hex(10)
    key_name = "bridge-" + pysecrets.token_hex(6)
    env = tool_env(tmp_path, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    (tmp_path / "work" / "note.txt").write_text(MARKER + "\n", encoding="utf-8")
    log = tmp_path / "requests.jsonl"
    sim_args = ("sim", "serve", "--port", "0", "--apis", "chat", "--require-key-env", "SIMKEY")
    with (
        served(*sim_args, "--request-log", str(log), env={"SIMKEY": secret}) as (url, _),
        stored_keys(env, {key_name: secret}),
    ):
        yield World(env, tmp_path, secret, key_name, log, url)


def run_tool(world: World, argv: list[str], extra_env: dict[str, str] | None = None) -> str:
    """Run a real tool to its end; return its stdout (its final message)."""
    return run_tool_fully(world, argv, extra_env).stdout


def run_tool_fully(
    world: World, argv: list[str], extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = tool(argv, env={**world.env, **(extra_env or {})}, cwd=world.tmp / "work", timeout=240)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert world.secret not in done.stdout + done.stderr
    return done


def assert_round_trip_reached_upstream(world: World, before: int) -> None:
    """Two chat completions: the tool call, then one carrying its result; both with the
    keyring key and the profile's model, streamed as the tool streams."""
    seen = world.chat_requests()[before:]
    assert len(seen) >= 2, seen
    assert all(r["stream"] for r in seen), seen
    assert {r["key_sha256"] for r in seen} == {key_fingerprint(world.secret)}
    assert {r["model"] for r in seen} == {MODEL}
    assert any("tool" in r["roles"] for r in seen)  # type: ignore[operator]
    # Besides chat completions only Codex's model-list refresh reaches upstream (the sim logs
    # /v1/models since Codex's key-command refetch was fixed), with the same key.
    others = [r for r in request_log(world.log) if r["path"] != "/v1/chat/completions"]
    assert {r["path"] for r in others} <= {"/v1/models"}, others
    assert {r["key_sha256"] for r in others} <= {key_fingerprint(world.secret)}, others


def test_codex_exec_through_a_standalone_bridge(world: World) -> None:
    world.add_bridged("gw-codex", "codex")
    with served("bridge", "gw-codex", "--port", "0", env=world.env) as (bridge, proc):
        provider = (
            '{name = "gw", base_url = "'
            + bridge
            + '/v1", wire_api = "responses", env_key = "GWKEY"}'
        )
        prompt = _codex_prompt()
        before = len(world.chat_requests())
        out = run_tool(
            world,
            [
                npm_bin("codex"),
                "-c",
                "model_provider=gw",
                "-c",
                f"model_providers.gw={provider}",
                "-c",
                f"model={json.dumps(MODEL)}",
                "exec",
                "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox",
                prompt,
            ],
            {"GWKEY": world.secret},  # what `profile use` hands Codex: the profile's key
        )
    assert "Tool exec_command returned:" in out and MARKER in out
    assert_round_trip_reached_upstream(world, before)
    assert proc.returncode == 0


def test_claude_p_through_a_standalone_bridge(world: World) -> None:
    world.add_bridged("gw-claude", "claude")
    with served("bridge", "gw-claude", "--port", "0", env=world.env) as (bridge, proc):
        prompt = _claude_prompt(world)
        before = len(world.chat_requests())
        out = run_tool(
            world,
            [npm_bin("claude"), "-p", prompt],
            {
                "ANTHROPIC_BASE_URL": bridge,
                "ANTHROPIC_AUTH_TOKEN": world.secret,
                "ANTHROPIC_MODEL": MODEL,
                # a user's start, with its warm-up `HEAD /api/hello` (empty counts as unset)
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "",
            },
        )
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        assert proc.stderr is not None
        log = proc.stderr.read()
    assert "Tool Read returned:" in out and MARKER in out
    assert_round_trip_reached_upstream(world, before)
    # Claude Code's start-up warm-up (`HEAD /api/hello`) was a `-> 404` line on every start
    assert "POST /v1/messages" in log and "-> 404" not in log and "/api/hello" not in log, log


def _codex_prompt() -> str:
    return 'show the note\nsim-tool: exec_command {"cmd": "cat note.txt"}'


def _claude_prompt(world: World) -> str:
    note = world.tmp / "work" / "note.txt"
    return f'read the note\nsim-tool: Read {{"file_path": "{note}"}}'


def _tool_files(world: World) -> dict[str, bytes | None]:
    paths = [world.tmp / "claude" / "settings.json", world.tmp / "codex" / "config.toml"]
    return {str(p): p.read_bytes() if p.exists() else None for p in paths}


def test_exec_runs_codex_through_its_own_bridge(world: World) -> None:
    world.add_bridged("gw-codex", "codex")
    files = _tool_files(world)
    before = len(world.chat_requests())
    out = run_tool(
        world,
        [
            *JUDGEAUDIT,
            "exec",
            "gw-codex",
            "--",
            npm_bin("codex"),
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            _codex_prompt(),
        ],
    )
    assert "Tool exec_command returned:" in out and MARKER in out
    assert_round_trip_reached_upstream(world, before)
    assert _tool_files(world) == files  # nothing written: the bridge lived for this command


def test_exec_runs_claude_through_its_own_bridge(world: World) -> None:
    world.add_bridged("gw-claude", "claude")
    files = _tool_files(world)
    before = len(world.chat_requests())
    out = run_tool(
        world,
        [
            *JUDGEAUDIT,
            "exec",
            "gw-claude",
            "--",
            npm_bin("claude"),
            "-p",
            _claude_prompt(world),
        ],
    )
    assert "Tool Read returned:" in out and MARKER in out
    assert_round_trip_reached_upstream(world, before)
    assert _tool_files(world) == files


@pytest.mark.parametrize("app", ["codex", "claude"])
def test_a_global_switch_goes_through_the_running_bridge(world: World, app: str) -> None:
    port = free_port()
    name = f"gw-{app}"
    world.add_bridged(name, app, "--option", f"bridge_port={port}")
    switched = world.judgeaudit("profile", "use", name)
    assert f"keep `judgeaudit bridge {name}` running" in switched.stdout + switched.stderr
    before = len(world.chat_requests())
    with served("bridge", name, env=world.env) as (bridge, _):
        assert bridge == f"http://127.0.0.1:{port}"  # the profile's bridge_port
        if app == "codex":
            argv = [
                npm_bin("codex"),
                "exec",
                "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox",
                _codex_prompt(),
            ]
        else:
            argv = [npm_bin("claude"), "-p", _claude_prompt(world)]
        out = run_tool(world, argv)
    assert MARKER in out
    assert_round_trip_reached_upstream(world, before)


def test_upstream_reasoning_reaches_both_tools(world: World) -> None:
    """A reasoning model's ``reasoning_content`` comes through as a Responses reasoning item
    (Codex prints it) and an Anthropic thinking block (Claude Code accepts it)."""
    with ReasoningUpstream() as upstream:
        for app in ("codex", "claude"):
            world.add_bridged(f"think-{app}", app, base_url=upstream.url, model="thinker")
        exec_ = [*JUDGEAUDIT, "exec"]
        done = run_tool_fully(
            world,
            [
                *exec_,
                "think-codex",
                "--",
                npm_bin("codex"),
                "exec",
                "--skip-git-repo-check",
                "hello",
            ],
        )
        # Codex prints its transcript (reasoning included) on stderr, the final answer on stdout.
        assert (
            ReasoningUpstream.THOUGHT in done.stderr
            and done.stdout.strip() == ReasoningUpstream.ANSWER
        )
        out = run_tool(
            world,
            [
                *exec_,
                "think-claude",
                "--",
                npm_bin("claude"),
                "-p",
                "hello",
                "--output-format",
                "json",
            ],
        )
        result = json.loads(out)
        assert result["result"] == ReasoningUpstream.ANSWER and result["is_error"] is False


@pytest.mark.parametrize("app", ["codex", "claude"])
def test_a_program_on_the_port_of_a_stopped_bridge_never_gets_the_key(
    world: World, app: str
) -> None:
    """A global switch sent the profile's real key to whatever held ``bridge_port`` while the
    bridge was stopped; the tool now sends its profile's local token. The program on the port
    here is the embedded server answering the tool's own API, whose log fingerprints every
    credential the real tool sent."""
    port = free_port()
    name = f"sq-{app}"
    world.add_bridged(name, app, "--option", f"bridge_port={port}")
    world.judgeaudit("profile", "use", name)
    squat_log = world.tmp / "squatter.jsonl"
    api = "responses" if app == "codex" else "messages"
    squatter = ("sim", "serve", "--port", str(port), "--apis", api, "--request-log", str(squat_log))
    with served(*squatter):
        if app == "codex":
            argv = [npm_bin("codex"), "exec", "--skip-git-repo-check", "say hi"]
        else:
            argv = [npm_bin("claude"), "-p", "say hi"]
        tool(argv, env=world.env, cwd=world.tmp / "work", timeout=240)
    seen = request_log(squat_log)
    assert any(r["path"] == f"/v1/{api}" for r in seen), seen  # the tool did talk to it
    assert key_fingerprint(world.secret) not in json.dumps(seen)
    token = world.judgeaudit("key", "bridge-token", name).stdout.strip()
    assert key_fingerprint(token) in {f for r in seen for f in r["keys_sha256"]}


@pytest.mark.parametrize("variable", ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"])
def test_a_shell_token_beside_a_switched_bridged_profile_is_warned_of(
    world: World, variable: str
) -> None:
    """A token exported in the terminal outranks (AUTH_TOKEN: instead of) or joins (API_KEY:
    beside) the bridged profile's helper token, as the real Claude Code shows on the port of
    a stopped bridge; `use` and `doctor` say so by name, never by value, and exec leaves it
    out (its bridge then accepts the command's requests)."""
    port = free_port()
    name = "st-claude"
    world.add_bridged(name, "claude", "--option", f"bridge_port={port}")
    shell_key = "sk-ant-shell-" + pysecrets.token_hex(10)
    shell = {**world.env, variable: shell_key}
    said = f"in this terminal's environment, {variable} is set (…{shell_key[-4:]}): Claude Code sends it"
    fix = f"`judgeaudit exec {name} -- claude`, which leaves it out"
    used = cli_ok("profile", "use", name, env=shell, whole_env=True, timeout=120)
    doctor = cli_ok("profile", "doctor", "claude", env=shell, whole_env=True, timeout=120)
    for out in (used.stdout + used.stderr, doctor.stdout + doctor.stderr):
        line = next((x for x in out.splitlines() if said in x), "")
        assert fix in line and f"127.0.0.1:{port}" in line, out
        assert shell_key not in out
    squat_log = world.tmp / "squatter.jsonl"
    squatter = ("sim", "serve", "--port", str(port), "--apis", "messages")
    with served(*squatter, "--request-log", str(squat_log)):
        tool([npm_bin("claude"), "-p", "say hi"], env=shell, cwd=world.tmp / "work", timeout=240)
    token = world.judgeaudit("key", "bridge-token", name).stdout.strip()
    seen = [r for r in request_log(squat_log) if r["path"] == "/v1/messages"]
    # what the warning says: the port gets it; AUTH_TOKEN is the bearer the bridge checks
    bearer = key_fingerprint(shell_key if variable == "ANTHROPIC_AUTH_TOKEN" else token)
    assert seen and all(r["key_sha256"] == bearer for r in seen), seen
    assert all(key_fingerprint(shell_key) in r["keys_sha256"] for r in seen), seen
    before = len(world.chat_requests())
    run_tool(
        world,
        [*JUDGEAUDIT, "exec", name, "--", npm_bin("claude"), "-p", "say hi"],
        {variable: shell_key},
    )
    assert len(world.chat_requests()) > before  # exec's own bridge accepted: no shell token


def test_exec_names_the_url_a_base_url_without_v1_sent_claude_code_to(world: World) -> None:
    """A Claude profile's usual base URL (no /v1) with bridge = chat: the gateway's 404 reached
    Claude Code 2.1.332, which shows it as "There's an issue with the selected model", so the
    user learnt nothing of the URL; exec says it once the command is done, one line."""
    root = world.upstream.removesuffix("/v1")
    world.add_bridged("novi-claude", "claude", base_url=root)
    argv = [*JUDGEAUDIT, "exec", "novi-claude", "--", npm_bin("claude"), "-p", "hello"]
    done = tool(argv, env=world.env, cwd=world.tmp / "work", timeout=240)
    said = [line for line in done.stderr.splitlines() if line.startswith("exec: bridge: ")]
    assert said == [
        f"exec: bridge: upstream HTTP 404: the bridge called POST {root}/chat/completions; if the"
        " gateway serves chat completions elsewhere, give the profile the OpenAI-compatible base"
        " they hang off, usually ending in /v1: `judgeaudit profile test novi-claude` tries it"
        " with and without /v1"
    ], done.stdout[-2000:] + done.stderr[-2000:]
    assert world.secret not in done.stdout + done.stderr

"""Contract tests of what docs/bridge.md ("Global switch") says the real tools do when a switched
bridged profile's bridge is not running: they neither fail nor reach anything else; Codex prints
that it reconnects and retries, Claude Code retries saying nothing of it; doctor names the cure."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

from tests.cli_helpers import cli
from tests.contract.test_bridge_tools import World, world
from tests.contract.test_real_tools import npm_bin
from tests.helpers import free_port

__all__ = ["world"]  # the fixture, shared with the bridge's other contract tests

pytestmark = pytest.mark.usefixtures("secret_service")

#: how long each tool is watched: long enough for several retries, short enough for CI
WATCH_S = 20.0


@pytest.mark.parametrize("app", ["codex", "claude"])
def test_a_switched_tool_waits_for_its_stopped_bridge(world: World, app: str) -> None:
    port = free_port()
    name = f"idle-{app}"
    world.add_bridged(name, app, "--option", f"bridge_port={port}")
    world.judgeaudit("profile", "use", name)
    doctor = cli("profile", "doctor", app, env=world.env, whole_env=True, timeout=120)
    cure = f"bridge: nothing answers on http://127.0.0.1:{port}; start `judgeaudit bridge {name}`"
    assert cure in doctor.stdout + doctor.stderr
    if app == "codex":
        argv = [npm_bin("codex"), "exec", "--skip-git-repo-check", "say hi"]
    else:
        argv = [npm_bin("claude"), "-p", "say hi"]
    proc = subprocess.Popen(
        argv,
        cwd=world.tmp / "work",
        env=world.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the npm wrapper starts the tool as its child: kill them both
    )
    try:
        proc.wait(timeout=WATCH_S)
    except subprocess.TimeoutExpired:
        pass
    finally:
        still_waiting = proc.poll() is None
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
    assert still_waiting, f"{app} ended with {proc.returncode}: {out[-1500:]}{err[-1500:]}"
    assert world.secret not in out + err
    if app == "codex":
        assert "Reconnecting" in err, err[-2000:]
    else:
        # no answer and no word of the connection (a start-up warning about a model name it
        # does not know, as the sim's, may be there)
        assert out == "" and not any(w in err.lower() for w in ("connect", "retry", "error"))

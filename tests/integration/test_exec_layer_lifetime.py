"""`exec`'s 0600 settings layer (it holds the key of a `key_env` profile) never outlives exec:
removed when a closed terminal sends SIGHUP, and swept by the next exec after a `kill -9`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

KEY = "sk-layer-test-not-real"


@pytest.fixture
def home(tmp_path: Path) -> Iterator[dict[str, str]]:
    for name in ("cfg", "claude", "codex", "home", "tmp", "work"):
        (tmp_path / name).mkdir()
    env = {
        **os.environ,
        "JUDGEAUDIT_CONFIG_DIR": str(tmp_path / "cfg"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
        "HOME": str(tmp_path / "home"),
        "TMPDIR": str(tmp_path / "tmp"),
        "LAYER_TEST_KEY": KEY,
    }
    added = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "profile", "add", "lt", "--app", "claude",
         "--base-url", "http://127.0.0.1:9", "--key-env", "LAYER_TEST_KEY"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    # Something that stands for Claude Code (by name) and lives until killed.
    (tmp_path / "work" / "bin").mkdir()
    sleeper = tmp_path / "work" / "bin" / "claude"
    sleeper.write_text('#!/bin/sh\necho "started $2"\nexec sleep 120\n')
    sleeper.chmod(0o755)
    yield env


def _start(env: dict[str, str], tmp: Path) -> tuple[subprocess.Popen[str], Path]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "judgeaudit", "exec", "lt", "--",
         str(tmp / "work" / "bin" / "claude")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # its own process group, as a terminal's job
    )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("started "), line + (proc.stderr.read() if proc.stderr else "")
    layer = Path(line.split(" ", 1)[1].strip())
    assert layer.parent == tmp / "tmp" and layer.exists()
    assert KEY in layer.read_text() and layer.stat().st_mode & 0o777 == 0o600
    return proc, layer


def test_sighup_removes_the_layer(home: dict[str, str], tmp_path: Path) -> None:
    proc, layer = _start(home, tmp_path)
    os.killpg(proc.pid, signal.SIGHUP)  # the terminal closes: the whole job gets SIGHUP
    assert proc.wait(timeout=30) == 128 + signal.SIGHUP
    assert not layer.exists()
    assert not list((tmp_path / "tmp").iterdir())


def test_after_kill_9_the_next_exec_sweeps_the_layer(home: dict[str, str], tmp_path: Path) -> None:
    proc, layer = _start(home, tmp_path)
    _kill_9(proc)
    assert layer.exists()  # nothing could remove it
    # A layer of a live exec (this test process) is left alone.
    live = tmp_path / "tmp" / f"judgeaudit-claude-{os.getpid()}-live.json"
    live.write_text("{}")
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "exec", "lt", "--", "true"],
        env=home, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not layer.exists() and live.exists()


def _kill_9(proc: subprocess.Popen[str]) -> None:
    """``kill -9`` of exec's job, waited out: nothing of exec can remove its layer."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(proc.pid):
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_an_exec_that_fails_still_sweeps_a_killed_execs_layer(
    home: dict[str, str], tmp_path: Path
) -> None:
    """The sweep ran only once a command started: an exec refused before that (here its key
    variable is not set) left the killed exec's layer, key and all (a new user's trial)."""
    proc, layer = _start(home, tmp_path)
    _kill_9(proc)
    assert layer.exists()
    without_key = {k: v for k, v in home.items() if k != "LAYER_TEST_KEY"}
    done = subprocess.run(
        [sys.executable, "-m", "judgeaudit", "exec", "lt", "--", "true"],
        env=without_key, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0
    assert not layer.exists()

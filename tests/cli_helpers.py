"""Running the real CLI in a child process, as a user's shell would, in an isolated world.

:func:`world_env` is the one definition of that world (the isolation fixture ``isolated`` in
``tests/conftest.py`` sets the same variables in-process); :func:`cli` is the one runner.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypedDict, Unpack

#: How a test starts judgeaudit: this interpreter, the installed package (never a PATH lookup).
JUDGEAUDIT = (sys.executable, "-m", "judgeaudit")
#: The directories of an isolated world, under its root.
WORLD_DIRS = ("cfg", "claude", "codex", "home", "work")


def world_env(root: Path) -> dict[str, str]:
    """Everything judgeaudit, Claude Code and Codex read their settings from, under ``root``:
    judgeaudit's config dir, CLAUDE_CONFIG_DIR, CODEX_HOME, both managed-settings files, HOME
    and the XDG directories (so nothing of the machine's own user leaks in or gets written)."""
    home = root / "home"
    return {
        "JUDGEAUDIT_CONFIG_DIR": str(root / "cfg"),
        "CLAUDE_CONFIG_DIR": str(root / "claude"),
        "CODEX_HOME": str(root / "codex"),
        "JUDGEAUDIT_CLAUDE_MANAGED_SETTINGS": str(root / "managed.json"),
        "JUDGEAUDIT_CODEX_MANAGED_CONFIG": str(root / "managed.toml"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }


def make_world(root: Path) -> Path:
    """Create the world's directories under ``root``; returns ``root``."""
    for name in WORLD_DIRS:
        (root / name).mkdir(parents=True, exist_ok=True)
    return root


def cli(
    *args: str,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    stdin: str | None = None,
    timeout: float = 600,
    whole_env: bool = False,
    no_stdin: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``python -m judgeaudit ARGS`` with this environment plus ``env`` (``whole_env``: ``env``
    alone, for a world that leaves variables out); output captured as text. ``no_stdin``: stdin
    is /dev/null (a tool judgeaudit starts must not wait on the terminal)."""
    return subprocess.run(
        [*JUDGEAUDIT, *args],
        input=stdin,
        stdin=subprocess.DEVNULL if no_stdin and stdin is None else None,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(env or {}) if whole_env else {**os.environ, **(env or {})},
        cwd=cwd,
    )


class CliOptions(TypedDict, total=False):
    """The options of :func:`cli`, for :func:`cli_ok`."""

    env: Mapping[str, str] | None
    cwd: Path | None
    stdin: str | None
    timeout: float
    whole_env: bool
    no_stdin: bool


def cli_ok(*args: str, **options: Unpack[CliOptions]) -> subprocess.CompletedProcess[str]:
    """:func:`cli` (same options), asserting exit 0 with stdout and stderr as the message."""
    done = cli(*args, **options)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def add_profile(env: Mapping[str, str], name: str, app: str, base_url: str, *extra: str) -> None:
    """``profile add NAME --app APP --base-url URL EXTRA...`` in the world ``env``, exit 0."""
    cli_ok("profile", "add", name, "--app", app, "--base-url", base_url, *extra, env=env,
           timeout=120)  # fmt: skip


def tool_env(root: Path, *, leave_out: tuple[str, ...] = (), **extra: str) -> dict[str, str]:
    """The whole environment of a contract test's child processes: this process's, without the
    variables starting with ``leave_out`` (say, the machine's own ``ANTHROPIC_``), plus an
    isolated world under ``root`` (created) and ``extra``."""
    make_world(root)
    kept = {k: v for k, v in os.environ.items() if not (leave_out and k.startswith(leave_out))}
    return {**kept, **world_env(root), **extra}


@contextmanager
def stored_keys(env: Mapping[str, str], keys: Mapping[str, str]) -> Iterator[None]:
    """``key set NAME`` (the secret on stdin) for each name -> secret for the block, and
    ``key delete`` after it, whatever happened in it."""
    try:
        for name, secret in keys.items():
            cli_ok("key", "set", name, env=env, stdin=secret, whole_env=True, timeout=120)
        yield
    finally:
        for name in keys:
            cli("key", "delete", name, env=env, whole_env=True, timeout=120)


def tool(
    argv: Sequence[str], *, env: Mapping[str, str], cwd: Path, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """Another program (Claude Code, Codex, or ``judgeaudit exec`` around one: start it with
    :data:`JUDGEAUDIT`) run to its end in ``cwd`` with the whole environment ``env``, stdin
    closed (a tool must not wait on the terminal), output captured as text."""
    return subprocess.run(
        list(argv),
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


#: A recorded-verdict run's spec (``{name}``: the run's name), the one the docs show.
RECORDED_SPEC = '[run]\nname = "{name}"\nimported = "pairs.jsonl"\n[judge]\nsource = "recorded"\n'


def recorded_run(folder: Path, log_text: str, *, period: str | None = None) -> Path:
    """A user's recorded run in ``folder`` (created): ``log_text`` as ``log.jsonl``, imported
    (``--period`` when given) and run with :data:`RECORDED_SPEC`; returns its output folder."""
    folder.mkdir()
    (folder / "log.jsonl").write_text(log_text, encoding="utf-8")
    dated = ["--period", period] if period else []
    pairs = str(folder / "pairs.jsonl")
    cli_ok("import", "recorded-jsonl", str(folder / "log.jsonl"), "--out", pairs, *dated)
    (folder / "spec.toml").write_text(RECORDED_SPEC.format(name=folder.name), encoding="utf-8")
    cli_ok("run", str(folder / "spec.toml"), "--out", str(folder / "out"))
    return folder / "out"


def recorded_runs_in_one(folder: Path, logs: Sequence[tuple[str, str]]) -> Path:
    """Each ``(name, log_text)`` imported and run into one output folder ``folder/out`` (the
    first a new directory, the rest ``--new-run``), as `compare OUT` and the app's picker take
    several runs of one directory; returns that folder."""
    out = folder / "out"
    for i, (name, text) in enumerate(logs):
        (folder / f"{name}.jsonl").write_text(text, encoding="utf-8")
        pairs = folder / f"{name}-pairs.jsonl"
        cli_ok("import", "recorded-jsonl", str(folder / f"{name}.jsonl"), "--out", str(pairs))
        spec = folder / f"{name}.toml"
        spec.write_text(RECORDED_SPEC.format(name=name).replace("pairs.jsonl", pairs.name), "utf-8")
        cli_ok("run", str(spec), "--out", str(out), *(["--new-run"] if i else []))
    return out

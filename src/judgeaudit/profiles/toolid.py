"""Which client a command runs, told by what it is rather than by its name.

``judgeaudit exec`` gives Claude Code its profile as a private settings layer and Codex its
profile as ``-c`` overrides; any other command gets environment variables. Guessing wrong with a
key is a leak: Claude Code ranks the ``env`` of the user's ``settings.json`` above the process
environment for the URL but not for the token, so a Claude Code that exec took for a plain
program sends this profile's key to the globally switched-on gateway. So a command is Claude Code
(or Codex) when its resolved file lives in the npm package or the native installer's versions
directory, when it is ``node``/``npx``/``npm exec`` running that package, or when a version probe
of a claude-named binary or a shell wrapper that mentions it answers as the client does.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

App = Literal["claude", "codex"]
APPS: tuple[App, ...] = ("claude", "codex")
#: npm package names (and the per-platform packages of the native binary) per client.
PACKAGES: dict[App, tuple[str, ...]] = {
    "claude": ("@anthropic-ai/claude-code",),
    "codex": ("@openai/codex",),
}
RUNNERS = frozenset({"npx", "bunx", "pnpx"})  # `npx PKG ARGS`
SUB_RUNNERS = {"npm": ("exec", "x"), "pnpm": ("dlx", "exec"), "yarn": ("dlx", "exec")}
INTERPRETERS = frozenset({"node", "nodejs", "bun"})
NODE_VALUE_OPTIONS = frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader"})
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "fish"})
VERSION_ANSWERS: dict[App, re.Pattern[str]] = {
    "claude": re.compile(r"^\s*\d+\.\d+\.\d+\S* \(Claude Code\)", re.M),
    "codex": re.compile(r"^\s*codex-cli \d+\.\d+", re.M),
}
PROBE_TIMEOUT_S = 15.0


@dataclass(frozen=True)
class Tool:
    """``app`` is None for any other program; the client's own arguments start at ``insert_at``
    (where exec puts ``--settings FILE`` or ``-c`` overrides); ``how`` says what told us."""

    app: App | None
    insert_at: int = 1
    how: str = ""


def stem(arg: str) -> str:
    name = Path(arg).name.lower()
    for suffix in (".exe", ".cmd", ".js", ".cjs", ".mjs", ".ps1"):
        name = name.removesuffix(suffix)
    return name


def locate(arg: str, env: dict[str, str], cwd: Path) -> str | None:
    """The file a command word runs, PATH looked up as the child would."""
    if os.sep in arg or (os.altsep and os.altsep in arg):
        found: str | None = str(cwd / arg)
    else:
        found = shutil.which(arg, path=env.get("PATH", os.defpath))
    return found if found and os.path.exists(found) else None


def resolve(arg: str, env: dict[str, str], cwd: Path) -> Path | None:
    """:func:`locate` with every symlink resolved: what the file really is."""
    found = locate(arg, env, cwd)
    return Path(os.path.realpath(found)) if found else None


def app_of_path(path: Path) -> App | None:
    """The client whose install this file belongs to: inside its npm package (or the package of
    its native binary), or in the native installer's ``claude/versions`` directory."""
    parts = [p.lower() for p in path.parts]
    for index, part in enumerate(parts[:-1]):
        scoped = f"{part}/{parts[index + 1]}"
        for app, packages in PACKAGES.items():
            if any(scoped == pkg or scoped.startswith(pkg + "-") for pkg in packages):
                return app
    if len(parts) >= 3 and parts[-2] == "versions" and parts[-3] == "claude":
        return "claude"  # ~/.local/share/claude/versions/2.1.x (the native installer)
    return None


def app_of_spec(spec: str) -> App | None:
    """``@anthropic-ai/claude-code``, ``...@2.1.332``, ``...@latest`` -> claude."""
    scope, _, rest = spec.lower().rpartition("/")
    name = f"{scope}/{rest.split('@', 1)[0]}" if scope else rest.split("@", 1)[0]
    for app, packages in PACKAGES.items():
        if name in packages:
            return app
    return None


def _after(command: list[str], index: int) -> int:
    """Where the client's own arguments start after the word at ``index`` (past a ``--``)."""
    nxt = index + 1
    return nxt + 1 if nxt < len(command) and command[nxt] == "--" else nxt


def _runner(command: list[str], start: int) -> Tool | None:
    """``npx [-y] PKG ARGS`` / ``npx --package=PKG BIN ARGS`` from ``command[start]`` on."""
    package: App | None = None
    index = start
    while index < len(command):
        arg = command[index]
        if arg in ("-p", "--package") and index + 1 < len(command):
            package = package or app_of_spec(command[index + 1])
            index += 2
            continue
        if arg.startswith("--package="):
            package = package or app_of_spec(arg.split("=", 1)[1])
        elif arg == "--" or arg.startswith("-"):
            pass
        elif (app := app_of_spec(arg)) is not None:
            return Tool(app, _after(command, index), "npm package")
        elif package is not None and stem(arg) == package:
            return Tool(package, _after(command, index), "npm package")
        else:
            return None  # another package or command
        index += 1
    return None


def _interpreted(command: list[str], env: dict[str, str], cwd: Path) -> Tool | None:
    """``node .../cli.js ARGS``: the script's path tells."""
    index = 1
    while index < len(command):
        arg = command[index]
        if arg in NODE_VALUE_OPTIONS:
            index += 2
            continue
        if arg.startswith("-"):
            if arg in ("-e", "--eval", "-p", "--print"):
                return None
            index += 1
            continue
        path = resolve(arg if os.sep in arg else os.path.join(".", arg), env, cwd)
        app = app_of_path(path) if path is not None else None
        return Tool(app, index + 1, "node script of the package") if app else None
    return None


def _wrapper_mentions(path: Path) -> App | None:
    """A small shell script that names a client: worth a version probe."""
    try:
        with path.open("rb") as handle:
            head = handle.read(65536)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    names = [Path(w).name for w in words if not w.startswith("-")]
    if names[:1] == ["env"]:
        names = names[1:]  # #!/usr/bin/env bash
    if not names or names[0] not in SHELLS:
        return None
    text = head.decode("utf-8", "replace").lower()
    return next((app for app in APPS if app in text), None)


def probe_env(env: dict[str, str]) -> dict[str, str]:
    """What the version probe runs with: no keys, tokens or endpoints."""
    secretish = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|BASE_URL|^ANTHROPIC_|^OPENAI_)")
    return {k: v for k, v in env.items() if not secretish.search(k.upper())}


def probe(path: str, env: dict[str, str], cwd: Path) -> App | None:
    """Run ``CMD --version`` (no keys in its environment, bounded) and read who answers."""
    try:
        done = subprocess.run(
            [path, "--version"],
            env=probe_env(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=PROBE_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    answer = done.stdout[:4096]
    return next((app for app, rx in VERSION_ANSWERS.items() if rx.search(answer)), None)


def identify(command: list[str], env: dict[str, str], cwd: Path | None = None) -> Tool:
    """What ``command`` runs; :class:`Tool` with ``app=None`` when nothing says it is a client."""
    cwd = cwd or Path.cwd()
    word = stem(command[0])
    path = resolve(command[0], env, cwd)
    if path is not None and (app := app_of_path(path)) is not None:
        return Tool(app, 1, "npm package" if "@" in str(path) else "native install")
    named = next((app for app in APPS if word == app), None)
    if named is not None:
        return Tool(named, 1, "name")
    if word in RUNNERS:
        return _runner(command, 1) or Tool(None)
    if word in SUB_RUNNERS and len(command) > 1 and command[1] in SUB_RUNNERS[word]:
        return _runner(command, 2) or Tool(None)
    if word in INTERPRETERS:
        return _interpreted(command, env, cwd) or Tool(None)
    if path is None:
        return Tool(None)
    named = next((app for app in APPS if word.startswith(app)), None)
    if named is not None or _wrapper_mentions(path) is not None:
        app = probe(locate(command[0], env, cwd) or str(path), env, cwd)
        if app is not None:
            return Tool(app, 1, "version probe")
    return Tool(None)

"""What would make a tool ignore a switch: the settings layers above the file judgeaudit edits.

Claude Code merges managed settings > ``--settings`` > project ``.claude/settings.local.json`` >
``.claude/settings.json`` > the user file, and a settings ``env`` outranks the shell; an
``ANTHROPIC_AUTH_TOKEN`` / ``ANTHROPIC_API_KEY`` anywhere outranks ``apiKeyHelper``. Codex layers
managed config > trusted project ``.codex/config.toml`` > the user file (+ ``-p`` profile). The
layers judgeaudit does not own are reported with file and key, never edited.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.profiles.livefile import read_live
from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.paths import (
    claude_managed_settings,
    claude_settings,
    codex_home,
    codex_managed_config,
    project_dirs,
)
from judgeaudit.profiles.targets import claude

CLAUDE_VARS = ("ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY")
CLAUDE_TOKENS = ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY")
CLAUDE_ROUTERS = claude.ROUTER_VARS
CODEX_KEYS = ("model", "model_provider", "model_providers", "profile")


@dataclass
class Layer:
    scope: str  # managed | project-local | project | user | shell | system
    path: Path | None
    data: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None  # unreadable: what is wrong

    @property
    def label(self) -> str:
        return f"{self.scope} {self.path}" if self.path else self.scope


def _read_text(path: Path) -> tuple[str | None, str | None]:
    """The file's text, or what is wrong with it; a FIFO or device is never opened (it would
    block ``profile doctor`` forever)."""
    try:
        raw = read_live(path)
    except ProfileError as exc:
        return None, str(exc).removeprefix(f"{path}: ").split(";")[0]
    if raw is None:
        return None, None
    try:
        return raw.decode("utf-8").removeprefix("\ufeff"), None
    except UnicodeDecodeError:
        return None, "unreadable (not UTF-8)"


def _read_json(path: Path) -> tuple[dict[str, Any], str | None]:
    text, problem = _read_text(path)
    if text is None:
        return {}, problem
    try:
        data = json.loads(text, parse_constant=_not_json)
    except _NotJson as exc:  # Claude Code's JSON.parse refuses it, so the whole file is skipped
        return {}, f"unreadable ({exc} is not JSON; Claude Code ignores this file)"
    except ValueError as exc:
        return {}, f"unreadable ({type(exc).__name__})"
    return (data, None) if isinstance(data, dict) else ({}, "not a JSON object")


class _NotJson(ValueError):
    pass


def _not_json(name: str) -> Any:
    raise _NotJson(name)


def _same(a: Path, b: Path) -> bool:
    """Whether two paths are one file; a symlink loop is simply not the same file."""
    return os.path.realpath(a) == os.path.realpath(b)


def _read_toml(path: Path) -> tuple[dict[str, Any], str | None]:
    text, problem = _read_text(path)
    if text is None:
        return {}, problem
    try:
        return tomllib.loads(text), None
    except ValueError as exc:
        return {}, f"unreadable ({type(exc).__name__})"


def claude_layers(cwd: Path | None = None) -> list[Layer]:
    """Highest precedence first; the shell last (a settings ``env`` outranks it)."""
    cwd = cwd or Path.cwd()
    layers = [Layer("managed", claude_managed_settings())]
    user = claude_settings()
    for directory in project_dirs(cwd):
        for name, scope in (("settings.local.json", "project-local"), ("settings.json", "project")):
            path = directory / ".claude" / name
            if path.exists() and not _same(path, user):
                layers.append(Layer(scope, path))
    layers.append(Layer("user", user))
    for layer in layers:
        assert layer.path is not None
        layer.data, layer.problem = _read_json(layer.path)
    shell_env = {k: v for k, v in os.environ.items() if k in (*CLAUDE_VARS, *CLAUDE_ROUTERS)}
    layers.append(Layer("shell", None, {"env": shell_env}))
    return layers


def codex_layers(cwd: Path | None = None) -> list[Layer]:
    cwd = cwd or Path.cwd()
    layers = [Layer("managed", codex_managed_config())]
    for directory in project_dirs(cwd):
        path = directory / ".codex" / "config.toml"
        if path.exists() and not _same(path, codex_home() / "config.toml"):
            layers.append(Layer("project", path))
    layers.append(Layer("user", codex_home() / "config.toml"))
    for layer in layers:
        assert layer.path is not None
        layer.data, layer.problem = _read_toml(layer.path)
    return layers


def _env(layer: Layer) -> dict[str, Any]:
    env = layer.data.get("env")
    return env if isinstance(env, dict) else {}


def claude_warnings(profile: Profile | None = None, cwd: Path | None = None) -> list[str]:
    out = []
    inline = profile is not None and profile.option("key_mode") == "inline"
    for layer in claude_layers(cwd):
        if layer.scope == "user":
            continue  # the file judgeaudit edits: conflicts there are handled by the switch
        env = _env(layer)
        where = f"{layer.path}: env." if layer.path else "in this terminal's environment, "
        fix = (
            "unset it"
            if layer.scope == "shell"
            else "ask your administrator"
            if layer.scope == "managed"
            else "remove it from that file"
        )
        for variable in CLAUDE_ROUTERS:
            if claude.truthy(env.get(variable)):
                out.append(
                    f"{where}{variable} is set: Claude Code then talks to Bedrock/Vertex and "
                    f"ignores ANTHROPIC_BASE_URL ({fix})"
                )
        for variable in CLAUDE_TOKENS:
            if variable in env and not (inline and layer.scope == "shell"):
                out.append(
                    f"{where}{variable} is set: Claude Code ranks it above apiKeyHelper and "
                    f"will send that key instead of the profile's ({fix})"
                )
        if layer.scope == "shell":
            continue
        for variable in ("ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL"):
            if variable in env:
                out.append(
                    f"{where}{variable} overrides the user settings ({layer.scope} layer); the "
                    f"switch will not apply there ({fix})"
                )
        if "apiKeyHelper" in layer.data:
            out.append(f"{layer.path}: apiKeyHelper overrides the user settings ({fix})")
    return out


def codex_warnings(profile: Profile | None = None, cwd: Path | None = None) -> list[str]:
    out = []
    for layer in codex_layers(cwd):
        tables = layer.data.get("profiles")
        if profile is not None and isinstance(tables, dict) and profile.name in tables:
            out.append(
                f"{layer.path}: has a legacy [profiles.{profile.name}] table: `codex -p "
                f"{profile.name}` refuses to start while it is there (remove that table)"
            )
        if layer.scope == "user":
            continue  # a legacy `profile = ...` line there: the switch itself says so
        keys = [k for k in CODEX_KEYS if k in layer.data]
        if keys:
            trust = " (when the project is trusted)" if layer.scope == "project" else ""
            out.append(
                f"{layer.path}: sets {', '.join(keys)}, which override config.toml{trust}; the "
                "switch will not apply there"
            )
    return out


def warnings_for(app: str, profile: Profile | None) -> list[str]:
    if app == "claude":
        return claude_warnings(profile)
    if app == "codex":
        return codex_warnings(profile)
    return []

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

from judgeaudit.profiles.model import Profile
from judgeaudit.profiles.paths import (
    claude_managed_settings,
    claude_settings,
    codex_home,
    codex_managed_config,
    project_dirs,
)

CLAUDE_VARS = ("ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY")
CLAUDE_TOKENS = ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY")
CLAUDE_ROUTERS = ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX")
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


def _read_json(path: Path) -> tuple[dict[str, Any], str | None]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, ValueError) as exc:
        return {}, f"unreadable ({type(exc).__name__})"
    return (data, None) if isinstance(data, dict) else ({}, "not a JSON object")


def _read_toml(path: Path) -> tuple[dict[str, Any], str | None]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), None
    except FileNotFoundError:
        return {}, None
    except (OSError, ValueError) as exc:
        return {}, f"unreadable ({type(exc).__name__})"


def claude_layers(cwd: Path | None = None) -> list[Layer]:
    """Highest precedence first; the shell last (a settings ``env`` outranks it)."""
    cwd = cwd or Path.cwd()
    layers = [Layer("managed", claude_managed_settings())]
    user = claude_settings()
    for directory in project_dirs(cwd):
        for name, scope in (("settings.local.json", "project-local"), ("settings.json", "project")):
            path = directory / ".claude" / name
            if path.exists() and path.resolve() != user.resolve():
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
        if path.exists() and path.resolve() != (codex_home() / "config.toml").resolve():
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
        where = f"{layer.path}: env." if layer.path else "this terminal's environment has "
        fix = (
            "unset it"
            if layer.scope == "shell"
            else "ask your administrator"
            if layer.scope == "managed"
            else "remove it from that file"
        )
        for variable in CLAUDE_ROUTERS:
            if env.get(variable):
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
        if layer.scope == "user":
            if "profile" in layer.data:
                out.append(
                    f"{layer.path}: `profile = {layer.data['profile']!r}` selects a [profiles.*] "
                    "table that can override model_provider (remove it by hand)"
                )
            continue
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

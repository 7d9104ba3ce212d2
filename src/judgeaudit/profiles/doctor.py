"""``judgeaudit profile doctor [APP]``: per app, the provider, model and key source the tool will
actually use, which layer each comes from and what it overrides. Keys are only ever masked."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from judgeaudit.profiles import secrets, shadowing
from judgeaudit.profiles.model import APPS
from judgeaudit.profiles.redact import mask

CLAUDE_DEFAULT_BASE = "https://api.anthropic.com"
KEYLIKE_RE = re.compile(r"(?<![\w/.-])(?=[\w-]*\d)[\w-]{20,}")


def _scrub(command: str) -> str:
    """A helper command as shown: anything that looks like an inline key is masked."""
    return KEYLIKE_RE.sub(lambda m: mask(m.group(0)), command)


def _winner(layers: list[shadowing.Layer], variable: str) -> tuple[Any, str | None, list[str]]:
    """The value of an env variable, the layer it comes from, and the layers it overrides."""
    found = [
        (layer, shadowing._env(layer)[variable])
        for layer in layers
        if variable in shadowing._env(layer)
    ]
    if not found:
        return None, None, []
    return found[0][1], found[0][0].label, [layer.label for layer, _ in found[1:]]


def _line(what: str, value: str, source: str | None, overridden: list[str]) -> str:
    text = f"  {what:<9} {value}"
    if source:
        text += f"   from {source}"
    if overridden:
        text += f"   (overrides {', '.join(overridden)})"
    return text


def _key_text(value: Any) -> str:
    return f"set ({mask(str(value))})" if value else "set but empty"


def claude_report(cwd: Path | None = None) -> list[str]:
    layers = shadowing.claude_layers(cwd)
    out = ["claude (Claude Code): layers, highest first"]
    for layer in layers:
        state = layer.problem or (
            "present" if layer.path is None or layer.path.exists() else "absent"
        )
        out.append(f"  - {layer.label}: {state}")
    base, source, over = _winner(layers, "ANTHROPIC_BASE_URL")
    out.append(_line("base URL", base or CLAUDE_DEFAULT_BASE, source or "default", over))
    model, source, over = _winner(layers, "ANTHROPIC_MODEL")
    setting_model = next((layer.data["model"] for layer in layers if "model" in layer.data), None)
    out.append(_line("model", model or setting_model or "Claude Code's default", source, over))
    for variable in shadowing.CLAUDE_TOKENS:
        value, source, over = _winner(layers, variable)
        if source:
            out.append(_line("key", f"{variable} {_key_text(value)}", source, over))
            out.append("            (it outranks apiKeyHelper: a profile's helper is not used)")
            break
    else:
        helper = next(
            (
                (layer.label, layer.data["apiKeyHelper"])
                for layer in layers
                if "apiKeyHelper" in layer.data
            ),
            None,
        )
        if helper:
            out.append(_line("key", f"apiKeyHelper `{_scrub(str(helper[1]))}`", helper[0], []))
        else:
            out.append(_line("key", "Claude Code's own login (claude.ai / keychain)", None, []))
    for variable in shadowing.CLAUDE_ROUTERS:
        value, source, _ = _winner(layers, variable)
        if value:
            out.append(f"  warning: {variable} from {source}: Bedrock/Vertex, base URL ignored")
    return out


def codex_report(cwd: Path | None = None) -> list[str]:
    layers = shadowing.codex_layers(cwd)
    out = ["codex (Codex CLI): layers, highest first"]
    for layer in layers:
        state = layer.problem or ("present" if layer.path and layer.path.exists() else "absent")
        note = " (read only when the project is trusted)" if layer.scope == "project" else ""
        out.append(f"  - {layer.label}: {state}{note}")

    def pick(key: str) -> tuple[Any, str | None, list[str]]:
        found = [(layer, layer.data[key]) for layer in layers if key in layer.data]
        if not found:
            return None, None, []
        return found[0][1], found[0][0].label, [layer.label for layer, _ in found[1:]]

    provider, source, over = pick("model_provider")
    provider = provider or "openai"
    tables: dict[str, Any] = {}
    for layer in reversed(layers):
        tables.update(layer.data.get("model_providers") or {})
    table = tables.get(provider, {}) if isinstance(tables.get(provider), dict) else {}
    out.append(_line("provider", str(provider), source or "default", over))
    if provider == "openai" and not table:
        base = os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        origin = (
            "OPENAI_BASE_URL in this terminal" if os.environ.get("OPENAI_BASE_URL") else "default"
        )
        out.append(_line("base URL", base, origin, []))
    else:
        out.append(
            _line("base URL", str(table.get("base_url", "?")), f"[model_providers.{provider}]", [])
        )
        if os.environ.get("OPENAI_BASE_URL"):
            out.append(
                "            (OPENAI_BASE_URL in this terminal only affects the built-in openai provider)"
            )
    model, source, over = pick("model")
    out.append(_line("model", str(model or "Codex's default"), source, over))
    auth = table.get("auth") if isinstance(table.get("auth"), dict) else None
    if auth:
        out.append(
            _line(
                "key",
                f"command `{auth.get('command')} {' '.join(map(str, auth.get('args', [])))}`",
                f"[model_providers.{provider}]",
                [],
            )
        )
    elif table.get("env_key"):
        variable = str(table["env_key"])
        state = (
            _key_text(os.environ.get(variable))
            if variable in os.environ
            else "NOT set in this terminal"
        )
        out.append(
            _line("key", f"${variable} {state}", f"[model_providers.{provider}] env_key", [])
        )
    elif table.get("experimental_bearer_token"):
        out.append(
            _line(
                "key",
                f"experimental_bearer_token {_key_text(table['experimental_bearer_token'])}",
                f"[model_providers.{provider}]",
                [],
            )
        )
    else:
        out.append(_line("key", "auth.json or OPENAI_API_KEY (Codex login)", None, []))
    out += [f"  warning: {w}" for w in shadowing.codex_warnings(None, cwd)]
    return out


def sdk_report(active: str | None) -> list[str]:
    out = ["sdk (OpenAI SDKs in this terminal)"]
    base = os.environ.get("OPENAI_BASE_URL")
    key = os.environ.get("OPENAI_API_KEY")
    out.append(
        _line(
            "base URL",
            base or "https://api.openai.com/v1 (SDK default)",
            "OPENAI_BASE_URL" if base else "default",
            [],
        )
    )
    out.append(
        _line(
            "key",
            _key_text(key) if key else "OPENAI_API_KEY not set",
            "this terminal" if key else None,
            [],
        )
    )
    if active:
        out.append(
            f"  judgeaudit sdk profile: {active} (applied by `judgeaudit env {active}` / `exec {active} -- ...`)"
        )
    return out


def report(app: str | None, active: dict[str, str], cwd: Path | None = None) -> list[str]:
    apps = [app] if app else list(APPS)
    lines: list[str] = []
    for name in apps:
        if name == "claude":
            lines += claude_report(cwd)
            lines += [f"  warning: {w}" for w in shadowing.claude_warnings(None, cwd)]
        elif name == "codex":
            lines += codex_report(cwd)
        else:
            lines += sdk_report(active.get("sdk"))
        if name in active and name != "sdk":
            lines.append(f"  judgeaudit profile in the user file: {active[name]}")
        if name == apps[-1]:
            ok, backend = secrets.backend_usable()
            lines.append(f"keyring: {backend}" + ("" if ok else " (not usable)"))
    return lines

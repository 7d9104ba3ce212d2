"""What would make a tool ignore a switch: the settings layers above the file judgeaudit edits.

As observed with Claude Code 2.1.332 against the embedded server: it merges managed settings >
``--settings`` > ``<cwd>/.claude/settings.local.json`` > ``<cwd>/.claude/settings.json`` > the
user file (``$CLAUDE_CONFIG_DIR/settings.json``, else ``~/.claude/settings.json``); project
files are read from the current directory only (not its parents, not the git root), so with
``CLAUDE_CONFIG_DIR`` set, ``~/.claude/settings.json`` is a project file in ``~``. A settings
``env`` outranks the shell. An empty ``ANTHROPIC_AUTH_TOKEN`` / ``ANTHROPIC_API_KEY`` counts as
unset; a set ``ANTHROPIC_AUTH_TOKEN`` replaces ``apiKeyHelper``'s key as the bearer token, and a
set ``ANTHROPIC_API_KEY`` is sent as ``x-api-key`` beside the helper's bearer token.
Codex 0.171 reads ``.codex/config.toml`` from the current directory up to the git root (the
current directory only outside a repository), and only when the project is trusted
(``[projects."<root>"] trust_level = "trusted"`` in the user file); above it the managed
config. The layers judgeaudit does not own are reported with file and key, never edited.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.profiles import bridgeopt, tokenwarn
from judgeaudit.profiles.livefile import read_live
from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.paths import (
    claude_managed_settings,
    claude_settings,
    codex_home,
    codex_managed_config,
)
from judgeaudit.profiles.targets import claude, codex

CLAUDE_TIERS = (
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
)
CLAUDE_VARS = (
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_API_KEY",
    *CLAUDE_TIERS,
)
CLAUDE_TOKENS = ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY")
CLAUDE_ROUTERS = claude.ROUTER_VARS
CODEX_KEYS = ("model", "model_provider", "model_providers", "profile")
#: Keys Codex reads from the user file only (it ignores them in a project's config.toml).
CODEX_USER_ONLY = ("model_provider", "model_providers")


@dataclass
class Layer:
    scope: str  # managed | project-local | project | user | shell | system
    path: Path | None
    data: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None  # unreadable: what is wrong
    ignored: bool = False  # the tool does not read it (an untrusted Codex project)
    unsupported: list[str] = field(default_factory=list)  # keys the tool ignores in this layer

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
        try:  # the switch's parser says where and what, as `use` does
            claude.parse(path, text.encode("utf-8"))
        except ProfileError as said:
            return {}, f"unreadable ({str(said).split('; ')[0]})"
        return {}, f"unreadable ({type(exc).__name__})"
    return (data, None) if isinstance(data, dict) else ({}, "not a JSON object")


class _NotJson(ValueError):
    pass


def _not_json(name: str) -> Any:
    raise _NotJson(name)


def _same(a: Path, b: Path) -> bool:
    """Whether two paths are one file; a symlink loop is simply not the same file."""
    return os.path.realpath(a) == os.path.realpath(b)


def read_toml_layer(path: Path) -> tuple[dict[str, Any], str | None]:
    text, problem = _read_text(path)
    if text is None:
        return {}, problem
    try:
        return tomllib.loads(text), None
    except ValueError as exc:
        try:  # the switch's parser names the line and column, as `use` does
            codex.parse(path, text.encode("utf-8"))
        except ProfileError as said:
            return {}, f"unreadable ({str(said).split('; ')[0]}; fix it or move it aside)"
        return {}, f"unreadable ({type(exc).__name__})"


def claude_layers(cwd: Path | None = None) -> list[Layer]:
    """Highest precedence first; the shell last (a settings ``env`` outranks it)."""
    cwd = cwd or Path.cwd()
    layers = [Layer("managed", claude_managed_settings())]
    user = claude_settings()
    for name, scope in (("settings.local.json", "project-local"), ("settings.json", "project")):
        path = cwd / ".claude" / name  # the current directory only, as Claude Code reads them
        if path.exists() and not _same(path, user):
            layers.append(Layer(scope, path))
    layers.append(Layer("user", user))
    for layer in layers:
        assert layer.path is not None
        layer.data, layer.problem = _read_json(layer.path)
    names = (*CLAUDE_VARS, claude.HEADERS_VAR, *CLAUDE_ROUTERS)
    shell_env = {k: v for k, v in os.environ.items() if k in names}
    layers.append(Layer("shell", None, {"env": shell_env}))
    return layers


def headers_below(cwd: Path, scopes: tuple[str, ...], shell: Mapping[str, str]) -> object:
    """The ``ANTHROPIC_CUSTOM_HEADERS`` value Claude Code started in ``cwd`` takes from the
    settings layers ``scopes`` or, when none of them sets it, from ``shell``: what a layer above
    them (exec's ``--settings``, a project binding) starts from. None: nothing sets it."""
    for layer in claude_layers(cwd):
        env = layer_env(layer)
        if layer.scope in scopes and claude.HEADERS_VAR in env:
            return env[claude.HEADERS_VAR]
    return shell.get(claude.HEADERS_VAR)


def tokens_under_binding(project: Path) -> list[str]:
    """``FILE: env.VAR`` (or ``FILE: apiKeyHelper``) for each key a project binding's layer
    would leave in force: set in the project's two files or the user file, Claude Code sends it
    instead of, or beside, the shell's token (what a ``key_mode = "env"`` binding relies on; the
    other modes blank the tokens and set their own helper)."""
    found = []
    for layer in claude_layers(project):
        if layer.scope in ("project-local", "project", "user"):
            env = layer_env(layer)
            found += [f"{layer.path}: env.{v}" for v in CLAUDE_TOKENS if env.get(v)]
            if layer.data.get("apiKeyHelper"):
                found.append(f"{layer.path}: apiKeyHelper")
    return found


def git_root(cwd: Path) -> Path | None:
    for directory in (cwd, *cwd.parents):
        if (directory / ".git").exists():
            return directory
    return None


def codex_project_dirs(cwd: Path) -> list[Path]:
    """Where Codex looks for ``.codex/config.toml``: the current directory up to the git root,
    nearest first (the current directory alone outside a repository)."""
    root = git_root(cwd)
    if root is None:
        return [cwd]
    return [cwd, *[d for d in cwd.parents if d == root or root in d.parents]]


def codex_trusted(cwd: Path, user: dict[str, Any]) -> bool:
    """Whether Codex trusts the project (its root, or a directory on the way there)."""
    projects = user.get("projects")
    if not isinstance(projects, dict):
        return False
    for directory in codex_project_dirs(cwd):
        entry = projects.get(str(directory))
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            return True
    return False


def codex_layers(cwd: Path | None = None) -> list[Layer]:
    """Highest precedence first; a project layer of an untrusted project keeps its data but
    has ``ignored`` set (Codex does not read it)."""
    cwd = cwd or Path.cwd()
    layers = [Layer("managed", codex_managed_config())]
    user = Layer("user", codex_home() / "config.toml")
    user.data, user.problem = read_toml_layer(codex_home() / "config.toml")
    trusted = codex_trusted(cwd, user.data)
    for directory in codex_project_dirs(cwd):
        path = directory / ".codex" / "config.toml"
        if path.exists() and not _same(path, codex_home() / "config.toml"):
            layers.append(Layer("project", path, ignored=not trusted))
    for layer in layers:
        assert layer.path is not None
        layer.data, layer.problem = read_toml_layer(layer.path)
        if layer.scope == "project":  # Codex 0.171: "Ignored unsupported project-local keys"
            layer.unsupported = [k for k in CODEX_USER_ONLY if layer.data.pop(k, None) is not None]
    layers.append(user)
    return layers


def layer_env(layer: Layer) -> dict[str, Any]:
    """A settings layer's ``env`` block ({} when it has none or it is not a table)."""
    env = layer.data.get("env")
    return env if isinstance(env, dict) else {}


_OVERRIDES = ("ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL")


def _holds_key(layer: Layer) -> bool:
    """Whether a layer brings its own key (then its base URL does not get the user file's)."""
    env = layer_env(layer)
    return bool(layer.data.get("apiKeyHelper")) or any(env.get(v) for v in CLAUDE_TOKENS)


def key_said(profile: Profile | None, layers: list[Layer] | None = None) -> str:
    """The key a user file's apiKeyHelper gives Claude Code, named (never its value): the
    profile's; with none switched, the user settings' helper if ``layers`` show one, else the
    key Claude Code finds by itself (it said a helper that was not there)."""
    if profile is not None and claude.tool_key_mode(profile) == "env":  # no helper: the shell's
        mode = "key_mode env: the token in this terminal's environment"
        return f"profile {profile.name}'s key ({mode})"
    if profile is not None and profile.key:
        return f"profile {profile.name}'s key (keyring entry {profile.key!r})"
    if profile is not None and profile.key_env:
        return f"profile {profile.name}'s key (from ${profile.key_env})"
    if layers is not None and not any(x.data.get("apiKeyHelper") for x in layers):
        return "the key Claude Code would use otherwise (its login; no apiKeyHelper is set)"
    return "the key of your user settings (its apiKeyHelper)"


def token_said(
    layer: Layer, variable: str, base: str, profile: Profile | None, layers: list[Layer]
) -> str:
    """The one warning of a token ``variable`` set in ``layer`` (``profile use``, its preview,
    the app and ``profile doctor`` all say it so): over a switched bridged profile's bridge when
    it comes from this terminal; a ``key_mode = "env"`` profile's key when it comes from this
    terminal (unless it is an ANTHROPIC_API_KEY beside a bearer token), else sent to ``base`` in
    place of the key it displaces."""
    value = layer_env(layer)[variable]
    if layer.scope == "shell" and profile is not None and bridgeopt.uses_bridge(profile):
        return tokenwarn.over_bridge(profile, variable, value)
    if layer.scope == "shell" and profile is not None and claude.tool_key_mode(profile) == "env":
        bearer = any(layer_env(x).get("ANTHROPIC_AUTH_TOKEN") for x in layers)
        if variable == "ANTHROPIC_AUTH_TOKEN" or not bearer:
            return tokenwarn.env_key(profile, variable, value, to=base)
    return tokenwarn.token_warning(
        variable, value, layer.scope, layer.path, to=base, instead_of=key_said(profile, layers)
    )


def _base_after(layers: list[Layer], profile: Profile | None, below: tuple[str, ...]) -> str:
    """The base URL Claude Code talks to once the switch is written: a layer above the edited
    file that sets one, else the profile's, else the user file's or this terminal's."""
    for layer in layers:
        url = layer_env(layer).get("ANTHROPIC_BASE_URL")
        if url and (profile is None or layer.scope not in (*below, "shell")):
            return str(url)
    return claude.anthropic_base(profile) if profile else tokenwarn.CLAUDE_DEFAULT_BASE


def claude_warnings(
    profile: Profile | None = None,
    cwd: Path | None = None,
    *,
    project_switch: bool = False,
    bound_here: bool = False,
    tokens: bool = True,
) -> list[str]:
    """``project_switch``: the switch writes ``<cwd>/.claude/settings.local.json``, so only the
    layers above it (managed, the shell) can override it. ``bound_here``: that file is a
    judgeaudit project binding (the doctor warned about the binding's own keys). ``tokens``:
    whether to warn about tokens too (the doctor's key lines already say it, in other words)."""
    out = []
    inline = profile is not None and claude.tool_key_mode(profile) == "inline"  # bridged: helper
    env_mode = profile is not None and claude.tool_key_mode(profile) == "env"
    below = ("user", "project-local", "project") if project_switch else ("user",)
    if bound_here:
        below = (*below, "project-local")
    layers = claude_layers(cwd)
    own_key = any(
        _holds_key(x) for x in layers if x.scope in ("managed", "project-local", "project")
    )
    base = _base_after(layers, profile, below)
    for layer in layers:
        if layer.scope in below:
            continue  # the file judgeaudit edits (conflicts there are the switch's) or below it
        env = layer_env(layer)
        where, fix = tokenwarn.where(layer.path), tokenwarn.fix(layer.scope)
        for variable in CLAUDE_ROUTERS:
            if claude.truthy(env.get(variable)):
                out.append(
                    f"{where}{variable} is set: Claude Code then talks to Bedrock/Vertex and "
                    f"ignores ANTHROPIC_BASE_URL ({fix})"
                )
        # a binding's layer blanks the terminal's tokens: the real Claude Code in a bound project
        # sent the profile's key only (a new user); key_mode env leaves them (they are its key,
        # and ANTHROPIC_API_KEY still goes beside ANTHROPIC_AUTH_TOKEN), so it warns as before
        bound = (project_switch or bound_here) and layer.scope == "shell" and not env_mode
        for variable in CLAUDE_TOKENS if tokens and not bound else ():
            if not env.get(variable) or (inline and layer.scope == "shell"):
                continue  # empty: Claude Code treats it as unset
            out.append(token_said(layer, variable, base, profile, layers))
        for name, _ in claude.credential_headers(env.get(claude.HEADERS_VAR)):
            out.append(
                f"{where}{claude.HEADERS_VAR} is set: Claude Code sends its {name} header, a "
                f"credential, to whatever gateway it talks to, this profile's included ({fix})"
            )
        if layer.scope == "shell":
            continue
        url = env.get("ANTHROPIC_BASE_URL")
        if url and not own_key:  # the user file's helper key goes to this URL
            out.append(
                f"{where}ANTHROPIC_BASE_URL overrides the user settings ({layer.scope} layer): "
                f"Claude Code started here sends {key_said(profile)} to {tokenwarn.host(url)}, not to "
                f"the profile's gateway ({fix})"
            )
        for variable in ("ANTHROPIC_MODEL",) if url and not own_key else _OVERRIDES:
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
        if layer.ignored:
            continue  # an untrusted project: Codex does not read it
        tables = layer.data.get("profiles")
        if profile is not None and isinstance(tables, dict) and profile.name in tables:
            out.append(
                f"{layer.path}: has a legacy [profiles.{profile.name}] table: `codex -p "
                f"{profile.name}` refuses to start while it is there (remove that table)"
            )
        if layer.scope == "user" or layer.ignored:
            continue  # user: the switch itself says so; untrusted: Codex does not read it
        keys = [k for k in CODEX_KEYS if k in layer.data]
        if keys:
            trust = " (the project is trusted)" if layer.scope == "project" else ""
            out.append(
                f"{layer.path}: sets {', '.join(keys)}, which override config.toml{trust}; the "
                "switch will not apply there"
            )
    return out

"""``judgeaudit profile doctor [APP]``: per app, the provider, model and key source the tool will
actually use, which layer each comes from and what it overrides. Keys are only ever masked."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from judgeaudit.credentials import mask_inline_credentials, shown_command
from judgeaudit.profiles import bridgeopt, secrets, shadowing, tokenwarn
from judgeaudit.profiles.model import APPS, Profile, ProfileError
from judgeaudit.profiles.targets import claude
from judgeaudit.redact import scrub_keylike

CLAUDE_DEFAULT_BASE = tokenwarn.CLAUDE_DEFAULT_BASE


def _winner(
    layers: list[shadowing.Layer], variable: str, *, empty_unset: bool = False
) -> tuple[Any, str | None, list[str]]:
    """The value of an env variable, the layer it comes from, and the layers it overrides.
    ``empty_unset``: an empty value counts as unset (Claude Code's rule for its keys), and it
    still overrides the layers below it (settings' env objects merge key by key, and the empty
    value reaches Claude Code: a project binding's blank tier hides the user file's)."""
    found = [
        (layer, shadowing.layer_env(layer)[variable])
        for layer in layers
        if variable in shadowing.layer_env(layer)
    ]
    if not found or (empty_unset and not found[0][1]):
        return None, None, []
    return found[0][1], found[0][0].label, [layer.label for layer, _ in found[1:]]


def _line(what: str, value: str, source: str | None, overridden: list[str]) -> str:
    """One ``what: value`` line. A URL's own ``user:password@`` is a credential wherever it is
    in the value (a base URL, an apiKeyHelper or auth command fetching the key from one, a
    model), so every value is masked, not only the base URL's."""
    text = f"  {what:<9} {mask_inline_credentials(value)}"
    if source:
        text += f"   from {source}"
    if overridden:
        text += f"   (overrides {', '.join(overridden)})"
    return text


_key_text = tokenwarn.shown


def _token_warning(
    layers: list[shadowing.Layer], variable: str, base: str, active: Profile | None
) -> str:
    """The warning ``profile use`` prints for the same token, from the same owner."""
    layer = next(x for x in layers if shadowing.layer_env(x).get(variable))
    return f"  warning: {shadowing.token_said(layer, variable, base, active, layers)}"


def _claude_keys(
    layers: list[shadowing.Layer], base: str, active: Profile | None = None
) -> list[str]:
    """Which key goes in which header (observed with Claude Code 2.1.332): a set
    ANTHROPIC_AUTH_TOKEN is the bearer token instead of the helper's key; a set
    ANTHROPIC_API_KEY goes as x-api-key *beside* it; empty ones count as unset. With a bridged
    profile switched in, a token from this terminal is said as what it does to the bridge."""
    out = []
    bridged = active is not None and bridgeopt.uses_bridge(active)
    helper = next(
        (
            (layer.label, layer.data["apiKeyHelper"])
            for layer in layers
            if "apiKeyHelper" in layer.data
        ),
        None,
    )
    token, token_src, token_over = _winner(layers, "ANTHROPIC_AUTH_TOKEN", empty_unset=True)
    api_key, key_src, key_over = _winner(layers, "ANTHROPIC_API_KEY", empty_unset=True)
    if token_src:
        out.append(_line("key", f"ANTHROPIC_AUTH_TOKEN {_key_text(token)}", token_src, token_over))
        if helper or (bridged and token_src == "shell"):
            out.append(_token_warning(layers, "ANTHROPIC_AUTH_TOKEN", base, active))
    elif helper:
        out.append(_line("key", f"apiKeyHelper `{scrub_keylike(str(helper[1]))}`", helper[0], []))
    if api_key is not None and key_src:
        out.append(_line("key", f"ANTHROPIC_API_KEY {_key_text(api_key)}", key_src, key_over))
        if (bridged and key_src == "shell") or token_src or helper:
            out.append(_token_warning(layers, "ANTHROPIC_API_KEY", base, active))
    if not (token_src or helper or key_src):
        out.append(_line("key", "Claude Code's own login (claude.ai / keychain)", None, []))
    for variable in shadowing.CLAUDE_TOKENS:
        _, source, _ = _winner(layers, variable)
        if source and not _winner(layers, variable, empty_unset=True)[1]:
            out.append(
                f"            ({variable} is set but empty in {source}: Claude Code ignores it)"
            )
    return out


def _claude_tiers(layers: list[shadowing.Layer], active: Profile | None) -> list[str]:
    """Model tier variables that send ``--model haiku`` or background calls elsewhere than the
    active profile's model."""
    out = []
    wanted = {active.model} if active and active.model else set()
    if active:
        wanted |= {str(v) for k, v in active.options.items() if k in claude.ENV_FOR_OPTION}
    for variable in shadowing.CLAUDE_TIERS:
        value, source, _ = _winner(layers, variable, empty_unset=True)
        if source and str(value) not in wanted:
            whose = f"profile {active.name}'s" if active else "the active"
            out.append(
                f"  tier: {variable} = {mask_inline_credentials(str(value))} from {source}: "
                "`claude --model "
                f"{_tier_word(variable)}` and Claude Code's background calls send it, not "
                f"{whose} model"
            )
    return out


def _tier_word(variable: str) -> str:
    for word in ("haiku", "sonnet", "opus"):
        if word.upper() in variable:
            return word
    return "haiku"  # ANTHROPIC_SMALL_FAST_MODEL: the small model of background calls


def claude_report(cwd: Path | None = None, active: Profile | None = None) -> list[str]:
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
    out += _claude_keys(layers, base or CLAUDE_DEFAULT_BASE, active)
    out += _claude_tiers(layers, active)
    for variable in shadowing.CLAUDE_ROUTERS:
        value, source, _ = _winner(layers, variable)
        if claude.truthy(value):
            out.append(
                f"  warning: {variable} from {source}: Claude Code talks to that cloud "
                "(Bedrock, Vertex, ...) and ignores the base URL"
            )
    return out


def codex_report(cwd: Path | None = None) -> list[str]:
    layers = shadowing.codex_layers(cwd)
    out = ["codex (Codex CLI): layers, highest first"]
    for layer in layers:
        state = layer.problem or ("present" if layer.path and layer.path.exists() else "absent")
        note = ""
        if layer.scope == "project":
            note = (
                " (ignored: the project is not trusted; Codex reads it once "
                f'[projects."{shadowing.git_root(cwd or Path.cwd()) or cwd or Path.cwd()}"] '
                'trust_level = "trusted" is in the user file)'
                if layer.ignored
                else " (read: the project is trusted)"
            )
            if layer.unsupported:
                note += f" (Codex ignores {', '.join(layer.unsupported)} in a project file)"
        out.append(f"  - {layer.label}: {state}{note}")
    layers = [layer for layer in layers if not layer.ignored]

    def pick(key: str) -> tuple[Any, str | None, list[str]]:
        found = [(layer, layer.data[key]) for layer in layers if key in layer.data]
        if not found:
            return None, None, []
        return found[0][1], found[0][0].label, [layer.label for layer, _ in found[1:]]

    legacy = [(layer, layer.data["profile"]) for layer in layers if "profile" in layer.data]
    if legacy:  # Codex 0.171+ exits at start-up: it uses nothing while this line is there
        for layer, name in legacy:
            out.append(
                f"  error: {layer.path}: legacy `profile = {json.dumps(str(name))}`: Codex "
                'refuses to start with it ("no longer supported"); move the [profiles.'
                f"{name}] settings into {name}.config.toml (used with `codex -p {name}`) and "
                "delete the line"
            )
        out.append("  Codex will not start, so no provider, model or key is in use")
        out += [f"  warning: {w}" for w in shadowing.codex_warnings(None, cwd)]
        return out
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
                # a key written into the command's arguments (`echo sk-...`) masked as the
                # Claude helper's is (a review: it printed in clear)
                f"command `{shown_command(_argv(auth))}`",
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


def _profile(name: str | None, removed: frozenset[str] | set[str], app: str) -> Profile | None:
    """The active profile of ``app``, if it still loads."""
    if not name or app in removed:
        return None
    from judgeaudit.profiles.store import ProfileStore

    try:
        return ProfileStore.default().get(name)
    except ProfileError:
        return None


def _bound_here(cwd: Path | None) -> dict[str, str]:
    from judgeaudit.profiles import project
    from judgeaudit.profiles.store import ProfileStore

    try:
        return project.bound(ProfileStore.default().state(), cwd or Path.cwd())
    except ProfileError:
        return {}


def _outranked_env_key(bound: Profile | None, cwd: Path | None) -> list[str]:
    """A ``key_mode = "env"`` binding relies on the shell's token; one a settings file set
    after the binding (the binding refuses one already there) outranks it and goes to the
    bound gateway: say so, file and variable, no value."""
    if bound is None or bound.app != "claude" or claude.tool_key_mode(bound) != "env":
        return []
    return [
        f"  warning: {found} is set: Claude Code sends that key to {bound.name!r}'s gateway "
        "instead of, or beside, this terminal's token (key_mode env); remove it from that file, "
        "or bind a profile with key_mode helper (the default)"
        for found in shadowing.tokens_under_binding(cwd or Path.cwd())
    ]


def _active_problems(app: str, name: str) -> list[str]:
    """The active profile's key gone from the keyring, or its live file changed since ``use``."""
    from judgeaudit.profiles import active, drift
    from judgeaudit.profiles.store import ProfileStore

    store = ProfileStore.default()
    found = [active.missing_key(store, name), drift.drift(store, app, name)]
    return [line for line in found if line]


def report(
    app: str | None,
    active: dict[str, str],
    cwd: Path | None = None,
    removed: frozenset[str] | set[str] = frozenset(),
) -> list[str]:
    """``removed``: the apps whose active profile was removed since it was switched on."""
    apps = [app] if app else list(APPS)
    lines: list[str] = []
    for name in apps:
        if name == "claude":
            switched = _profile(active.get("claude"), removed, "claude")
            lines += claude_report(cwd, switched)
            bound = bool(_bound_here(cwd).get("claude"))
            lines += [
                f"  warning: {w}"
                for w in shadowing.claude_warnings(switched, cwd, bound_here=bound, tokens=False)
            ]
        elif name == "codex":
            lines += codex_report(cwd)
        else:
            lines += sdk_report(None if "sdk" in removed else active.get("sdk"))
        here = _bound_here(cwd).get(name)
        if here:
            lines.append(
                f"  judgeaudit profile bound to this directory: {here} (in its "
                "settings.local.json; `judgeaudit profile off claude --project` removes it)"
            )
            lines += _outranked_env_key(_profile(here, frozenset(), name), cwd)
        if name in active and name != "sdk":
            gone = (
                f" (removed since; `judgeaudit profile off {name}` gives you your own values back)"
                if name in removed
                else ""
            )
            lines.append(f"  judgeaudit profile in the user file: {active[name]}{gone}")
        if name in active and name not in removed:
            lines += [f"  warning: {w}" for w in _active_problems(name, active[name])]
        if name == apps[-1]:
            lines.append(f"keyring: {secrets.keyring_said()}")  # the words of `key status`
    return lines


def _argv(auth: dict[str, Any]) -> list[object]:
    """A Codex ``auth`` table's command and arguments (``args`` not a list: one argument)."""
    args = auth.get("args", [])
    return [auth.get("command"), *(args if isinstance(args, list) else [args])]

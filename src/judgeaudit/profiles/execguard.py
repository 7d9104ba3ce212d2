"""Whether ``judgeaudit exec`` may give a profile's key to a command as environment variables.

A command exec does not recognise (``env codex``, a wrapper script, a program that starts a
client) can still run Claude Code or Codex, and those read their own files before the process
environment: Claude Code ranks a settings file's ``env`` above it for the URL (not the token),
and Codex sends the variables a provider table reads (``env_key``, ``env_http_headers``, an
``auth`` command: :func:`~judgeaudit.profiles.targets.codexauth.variables_read`) to that table's
``base_url``. Exporting the key is then a guess, and a wrong one sends it to another gateway.
So exec refuses such a command while a file of the user's would redirect a variable it exports
with the key, and refuses a recognised client a profile of another app does not configure; the
user says what the command is with ``--as``. ``judgeaudit env`` cannot know what the shell will
run, so it refuses in the same case (:func:`check_env`).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.paths import codex_home
from judgeaudit.profiles.targets import claude, codexauth
from judgeaudit.profiles.toolid import Tool

#: Settings-file env variables that would send Claude Code, and our key, somewhere else.
REDIRECT_VARS = ("ANTHROPIC_BASE_URL", *claude.TOKEN_VARS)
CLIENTS = {"claude": "Claude Code", "codex": "Codex"}


def claude_redirects(
    cwd: Path | None = None, base_url: str | None = None, own_key: str | None = None
) -> list[str]:
    """``FILE sets env.X`` for each Claude Code settings layer whose ``env`` outranks the
    process environment with another endpoint (than ``base_url``, the one exported), token or
    cloud. A token equal to ``own_key`` in a layer that names ``base_url`` is the profile's own
    (a switched-in ``key_mode = "inline"`` profile): nothing redirected."""
    from judgeaudit.profiles.shadowing import claude_layers  # reads files: only when needed

    out = []
    for layer in claude_layers(cwd):
        env = layer.data.get("env")
        if layer.path is None or not isinstance(env, dict):
            continue
        layer_url = env.get("ANTHROPIC_BASE_URL")
        own_gateway = (
            isinstance(layer_url, str)
            and bool(base_url)
            and layer_url.rstrip("/") == str(base_url).rstrip("/")
        )
        for variable in REDIRECT_VARS:
            if variable == "ANTHROPIC_BASE_URL" and own_gateway:
                continue  # this profile's own gateway (it is switched in): nothing redirected
            token = env.get(variable) if variable in claude.TOKEN_VARS else None
            if own_gateway and own_key and isinstance(token, str) and token == own_key:
                continue  # its own key to its own gateway (an inline profile switched in)
            if env.get(variable):
                out.append(f"{layer.path} sets env.{variable}")
        for variable in claude.ROUTER_VARS:
            if claude.truthy(env.get(variable)):
                out.append(f"{layer.path} sets env.{variable}")
        if claude.credential_headers(env.get(claude.HEADERS_VAR)):
            out.append(f"{layer.path} sets env.{claude.HEADERS_VAR} (a credential header)")
    return out


def _codex_files() -> list[tuple[Path, dict[str, object]]]:
    """Each Codex file that can hold a provider table, with its data: the layers Codex reads
    (:func:`~judgeaudit.profiles.shadowing.codex_layers`: the managed config and
    ``config.toml``; a project's tables Codex ignores) and the ``NAME.config.toml`` of
    ``codex -p``. An unreadable file has no tables (Codex says what is wrong with it)."""
    from judgeaudit.profiles import shadowing  # reads files: only when needed

    found = [(x.path, x.data) for x in shadowing.codex_layers() if x.path and not x.ignored]
    per_profile = sorted(codex_home().glob("*.config.toml"))
    return found + [(p, shadowing.read_toml_layer(p)[0]) for p in per_profile]


def codex_redirects(exported: Collection[str], base_url: str) -> list[str]:
    """``FILE [model_providers.ID] sends $VAR to URL`` for each provider table of the Codex
    files (:func:`_codex_files`) that reads one of the ``exported`` variables
    (:func:`~judgeaudit.profiles.targets.codexauth.variables_read`) and sends it to another
    base URL than ``base_url``; an ``auth`` command that is not judgeaudit's may print any of
    them (:func:`~judgeaudit.profiles.targets.codexauth.foreign_auth`)."""
    out = []
    for path, data in _codex_files():
        providers = data.get("model_providers")
        for ident, table in (providers if isinstance(providers, dict) else {}).items():
            if not isinstance(table, dict):
                continue
            read = [v for v in codexauth.variables_read(table, exported) if v in exported]
            url = table.get("base_url")
            if read and (not isinstance(url, str) or url.rstrip("/") != base_url.rstrip("/")):
                to = url if isinstance(url, str) else "Codex's default URL"
                sends = (
                    "runs an auth command that is not judgeaudit's and may print "
                    f"${read[0]}, sending it to {to}"
                    if codexauth.foreign_auth(table)
                    else f"sends ${read[0]} to {to}"
                )
                out.append(f"{path} [model_providers.{ident}] {sends}")
    return out


def redirects(
    profile: Profile, with_key: Collection[str], *, own_key: str | None
) -> list[tuple[str, str]]:
    """``(app, FILE ...)`` for each file of the user's that would send one of ``with_key`` (the
    variables set to the profile's key, ``own_key``) to another gateway than the profile's.
    ``own_key`` has no default: a caller that left it out refused a switched-in inline profile
    over its own token (``exec`` did, ``env`` did not)."""
    found: list[tuple[str, str]] = []
    if set(with_key) & set(claude.TOKEN_VARS):
        gateway = profile.anthropic_gateway()
        found += [("claude", line) for line in claude_redirects(None, gateway, own_key)]
    found += [("codex", line) for line in codex_redirects(with_key, profile.openai_base())]
    return found


def check_env(profile: Profile, with_key: Collection[str], *, own_key: str | None) -> None:
    """``judgeaudit env``: the guard of a command exec cannot recognise (a shell that loaded the
    exports can start anything), refused in one line before anything is printed."""
    found = redirects(profile, with_key, own_key=own_key)
    if not found:
        return
    app, line = found[0]
    client, name = CLIENTS[app], profile.name
    run = (
        f"run {client} with `judgeaudit exec {name} -- {app} ...`, which outranks that file"
        if profile.app == app
        else f"give {client} a {app} profile (`judgeaudit exec NAME -- {app} ...`)"
    )
    raise ProfileError(
        f"env: {line}, which {client} would put before this profile's gateway or key; "
        f"nothing was printed: {run}, or give "
        f"`judgeaudit env {name} --force` only if no {client} runs with these exports"
    )


def check(
    profile: Profile, command: list[str], tool: Tool, with_key: Collection[str], *, own_key: str
) -> None:
    """Refuse (one line, nothing run) to give the profile's environment to a client of another
    app, or to a command exec cannot recognise while a file of the user's would send one of
    ``with_key`` (the variables exec sets to the key) to another gateway."""
    if tool.how == "--as plain" or tool.app == profile.app:
        return
    name = profile.name
    if tool.app is not None:
        client = CLIENTS[tool.app]
        raise ProfileError(
            f"exec: {command[0]} is {client} ({tool.how}) and {name!r} is a {profile.app} "
            f"profile, which {client} does not read; nothing was run: use a {tool.app} profile "
            f"(`judgeaudit profile list`), or `judgeaudit exec {name} --as plain -- ...` to give "
            f"it the environment anyway"
        )
    found = redirects(profile, with_key, own_key=own_key)
    if not found:
        return
    app, line = found[0]
    client = CLIENTS[app]
    said = (
        f"say `judgeaudit exec {name} --as {app} -- ...` ({client} or a wrapper passing its "
        f"arguments on) or `--as plain` (no {client} inside)"
        if profile.app == app
        else f"use a {app} profile for {client}, or `judgeaudit exec {name} --as plain -- ...` "
        f"(no {client} inside)"
    )
    raise ProfileError(
        f"exec: cannot tell that {command[0]} is {client}, and {line}, which {client} would "
        f"put before this profile's gateway or key; nothing was run: {said}"
    )

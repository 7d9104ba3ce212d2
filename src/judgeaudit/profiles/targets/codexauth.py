"""One key source per Codex provider id across judgeaudit's Codex files.

``codex -p NAME`` merges ``NAME.config.toml`` over ``config.toml`` key by key, and refuses to
start when a provider table ends up with both ``auth`` and ``env_key`` ("provider auth cannot
be combined with env_key"). Profiles of one gateway share a provider id (``codex resume`` shows
one id's sessions) and may take their key differently: a keyring entry through an ``auth``
command, a variable through ``env_key``. So a switch writes the tables of one id in one form:
an ``auth`` command as soon as one of judgeaudit's files holds that id with a command (only a
command prints a keyring entry), an ``env_key`` table then turned into a command printing its
variable (:func:`~judgeaudit.profiles.targets.codex.as_command`, the same key); and it turns
the other per-profile files of that id, which a later ``codex -p`` merges, the same way.
Which variables a table then reads (:func:`variables_read`) is asked here too, by ``exec``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from judgeaudit.profiles.ledger import Entry, fingerprint
from judgeaudit.profiles.model import Profile
from judgeaudit.profiles.paths import codex_home
from judgeaudit.profiles.targets import FilePlan, authcmd
from judgeaudit.profiles.targets import codex as codex_target
from judgeaudit.profiles.tomltext import TomlText


def _our_table(raw: bytes | None, ident: str) -> dict[str, Any] | None:
    """The ``[model_providers.<ident>]`` judgeaudit wrote in a file's text, if any."""
    try:
        data = tomllib.loads(raw.decode("utf-8").removeprefix("\ufeff")) if raw else {}
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    table = (data.get("model_providers") or {}).get(ident)
    ours = isinstance(table, dict) and str(table.get("name", "")).endswith(codex_target.OURS_SUFFIX)
    return table if ours and isinstance(table, dict) else None


def others(profile: Profile) -> list[Path]:
    """The ``<name>.config.toml`` files beside ``config.toml`` but ``profile``'s own
    (``codex -p`` merges each over ``config.toml``)."""
    home, own = codex_home(), f"{profile.name}.config.toml"
    return [p for p in sorted(home.glob("*.config.toml")) if p.name not in ("config.toml", own)]


def _ours_in(path: Path, ident: str) -> dict[str, Any] | None:
    try:
        return _our_table(path.read_bytes(), ident)
    except OSError:
        return None


def needs_command(profile: Profile) -> bool:
    """Whether the switch to ``profile`` writes its table as an ``auth`` command: its key is a
    keyring entry, or another per-profile file holds the same id with a command."""
    if codex_target.key_mode(profile) == "command":
        return True
    ident = codex_target.provider_id(profile)
    return any("auth" in (_ours_in(p, ident) or {}) for p in others(profile))


def to_align(profile: Profile) -> list[Path]:
    """The other per-profile files whose ``env_key`` table of the profile's id the switch turns
    into a command (only when it writes a command itself)."""
    if not needs_command(profile):
        return []
    ident = codex_target.provider_id(profile)
    return [p for p in others(profile) if "env_key" in (_ours_in(p, ident) or {})]


def align(path: Path, raw: bytes | None, ident: str, ledger: dict[str, Entry]) -> FilePlan:
    """Another profile's ``<name>.config.toml`` with its ``env_key`` table of ``ident`` turned
    into an ``auth`` command (the same variable): the form ``config.toml`` now has."""
    table = _our_table(raw, ident)
    dotted = f"model_providers.{ident}"
    if raw is None or table is None or "env_key" not in table or dotted not in ledger:
        return FilePlan(path, raw, raw, kind="codex-profile", ledger=ledger)
    variable = table["env_key"]
    new = codex_target.as_command(dict(table))
    text = TomlText(raw.decode("utf-8"))
    text.set_table(("model_providers", ident), codex_target.ordered(new))
    ledger = {k: dict(v) for k, v in ledger.items()}
    ledger[dotted]["wrote"] = fingerprint(codex_target.table_raw(new))
    note = (
        f"{path}: [model_providers.{ident}] reads ${variable} through an auth command now, "
        f"as config.toml's table of that id does (`codex -p` merges the two)"
    )
    return FilePlan(
        path, raw, text.text.encode("utf-8"), kind="codex-profile", ledger=ledger, notes=[note]
    )


def variables_read(table: Mapping[str, object], exported: Collection[str] = ()) -> list[str]:
    """The environment variables a Codex provider table sends to its gateway: ``env_key`` (the
    bearer token), each value of ``env_http_headers`` (a header filled from a variable), and
    what an ``auth`` command prints: judgeaudit's own (:func:`~judgeaudit.profiles.targets.
    authcmd.ours`) its variable, if any; any other command (:func:`foreign_auth`), run by Codex
    with the whole environment, every one of ``exported``: what it prints cannot be known."""
    found = [table["env_key"]] if isinstance(table.get("env_key"), str) else []
    headers = table.get("env_http_headers")
    if isinstance(headers, dict):
        found += [v for v in headers.values() if isinstance(v, str)]
    if foreign_auth(table):
        found += list(exported)
    elif (own := authcmd.ours(_auth_argv(table))) is not None and own[0] == "env":
        found.append(own[1])
    return list(dict.fromkeys(str(v) for v in found))


def selected_tables(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The provider tables a Codex file has Codex use: the one its ``model_provider`` names and
    each ``[profiles.P]``'s (``codex -p P``). A table nothing selects is never read: one left
    for another provider id (a hand-edited table the switch keeps) runs no ``auth`` command."""
    providers = data.get("model_providers")
    if not isinstance(providers, dict):
        return []
    return [providers[i] for i in _chosen(data) if isinstance(providers.get(i), dict)]


def unselected_tables(data: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The provider tables nothing in a Codex file selects, by id: Codex reads one only when
    started with ``-c model_provider=ID`` (a table left for another profile's id, one written
    by hand), so what its ``auth`` command reads breaks only such a start."""
    providers = data.get("model_providers")
    if not isinstance(providers, dict):
        return {}
    chosen = _chosen(data)
    return {str(i): t for i, t in providers.items() if i not in chosen and isinstance(t, dict)}


def _chosen(data: Mapping[str, Any]) -> list[str]:
    """The provider ids a Codex file selects: ``model_provider``'s and each ``[profiles.P]``'s."""
    chosen = [data.get("model_provider")]
    profiles = data.get("profiles")
    if isinstance(profiles, dict):
        chosen += [p.get("model_provider") for p in profiles.values() if isinstance(p, dict)]
    return list(dict.fromkeys(c for c in chosen if isinstance(c, str)))


def keyring_read(table: Mapping[str, object]) -> str | None:
    """The keyring entry a provider table's ``auth`` command prints (our ``key print KEY``)."""
    return authcmd.keyring_read(_auth_argv(table))


def _auth_argv(table: Mapping[str, object]) -> list[str]:
    auth = table.get("auth")
    if not isinstance(auth, dict):
        return []
    args = auth.get("args", [])
    return [str(auth.get("command", "")), *(map(str, args) if isinstance(args, list) else ["?"])]


def foreign_auth(table: Mapping[str, object]) -> bool:
    """Whether the table has an ``auth`` command that is not one of judgeaudit's own (a script
    of the user's, ``sh -c ...``): it may print any variable of Codex's environment."""
    return "auth" in table and authcmd.ours(_auth_argv(table)) is None

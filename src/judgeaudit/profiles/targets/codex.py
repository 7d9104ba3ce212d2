"""Codex ``config.toml`` (and ``<name>.config.toml`` for ``codex -p``), edited as text
(:mod:`judgeaudit.profiles.tomltext`) so comments, line ends, blank lines and unrelated tables
survive byte for byte; only the keys judgeaudit owns are reconciled, and a real parser proves
that nothing else changed.

Provider ids: ``options.provider_id``, else the single id the user opted into (``profile
codex-history shared``), else one id per gateway derived from the base URL's host
(``taotoken.net`` -> ``taotoken``). Codex files sessions under the provider id and ``codex
resume`` shows those of the current one, so every profile for the same gateway shares an id and
changing a model or profile keeps the history visible; the single id keeps it across gateways.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from judgeaudit.hosts import is_loopback_host
from judgeaudit.profiles import bridgeopt
from judgeaudit.profiles.ledger import Entry, Reconciler, fingerprint
from judgeaudit.profiles.model import (
    BUILTIN_CODEX_PROVIDERS,
    PROVIDER_ID_RE,
    Profile,
    ProfileError,
)
from judgeaudit.profiles.paths import config_dir
from judgeaudit.profiles.targets import FileKind, FilePlan, authcmd
from judgeaudit.profiles.tomltext import TomlText, render_key, render_value

OURS_SUFFIX = "(judgeaudit)"
#: Codex waits 5 s for an auth command by default; a busy machine can need more than that.
AUTH_TIMEOUT_MS = 15000
ROOT_KEYS = ("model", "model_provider")
#: The key in judgeaudit's state.json holding the opted-in single Codex provider id.
SHARED_ID_STATE: Final = "codex_shared_provider_id"
DEFAULT_SHARED_ID = "judgeaudit"


def default_provider_id(base_url: str) -> str:
    """One id per gateway host: the host without ``api.``/``www.`` and its last label
    (``api.deepseek.com`` → ``deepseek``, ``gw.corp-a.com`` → ``gw-corp-a``), an IP address
    whole, an explicit port appended. It was the first label alone, so ``gw.corp-a.com`` and ``gw.corp-b.com`` shared
    ``gw`` and ``codex resume`` on one offered (and sent) the other's sessions."""
    parts = urlsplit(base_url)
    host = (parts.hostname or "local").lower()
    if is_loopback_host(host):
        ident = f"local-{parts.port or 80}"
    elif ":" in host or host.replace(".", "").isdigit():
        ident = host  # an IPv4 or IPv6 address: every part tells one gateway from another
    else:
        labels = [x for x in host.split(".") if x not in ("api", "www")]
        ident = "-".join(labels[:-1]) if len(labels) > 1 else host
    if parts.port and not ident.startswith("local-"):
        ident += f"-{parts.port}"  # one host, two ports: two gateways
    ident = re.sub(r"[^a-z0-9_-]+", "-", ident).strip("-") or "gateway"
    return f"{ident}-api" if ident in BUILTIN_CODEX_PROVIDERS else ident


def shared_provider_id() -> str | None:
    """The one provider id every Codex profile uses when the user opted in (``judgeaudit
    profile codex-history shared``): ``codex resume --last`` then finds every session, whatever
    gateway wrote it. ``None``: one id per gateway (the default)."""
    try:
        data = json.loads((config_dir() / "state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get(SHARED_ID_STATE) if isinstance(data, dict) else None
    return value if isinstance(value, str) and PROVIDER_ID_RE.match(value) else None


def provider_id(profile: Profile) -> str:
    """The profile's own ``provider_id`` option, else the shared id, else one per gateway."""
    given = profile.option("provider_id") or shared_provider_id()
    ident = str(given) if given else default_provider_id(profile.base_url)
    if ident in BUILTIN_CODEX_PROVIDERS:
        raise ProfileError(f"profile {profile.name!r}: {ident!r} is a built-in Codex provider id")
    return ident


def env_key_name(profile: Profile) -> str:
    given = profile.option("env_key") or profile.key_env
    if given:
        return str(given)
    return re.sub(r"[^A-Z0-9]", "_", f"JUDGEAUDIT_{profile.name.upper()}_KEY")


def key_mode(profile: Profile) -> str:
    """How Codex gets the key: ``command`` (an ``auth`` command printing the keyring entry) or
    ``env_key`` (Codex reads a variable). Unset, it follows the key the profile has: a keyring
    entry, else its ``key_env``. ``command`` without a keyring entry is one line naming both
    fixes."""
    if bridgeopt.uses_bridge(profile):
        return "command"  # the local bridge token's command (the bridge holds the real key)
    mode = str(
        profile.option("key_mode")
        or ("env_key" if profile.key_env and not profile.key else "command")
    )
    if mode == "command" and not profile.key:
        env = (
            f"`--option key_mode=env_key` to read ${profile.key_env}, or "
            if profile.key_env
            else ""
        )
        raise ProfileError(
            f"profile {profile.name!r}: key_mode command reads a keyring entry and the profile "
            f"has none: {env}give it one with --key NAME (`judgeaudit profile edit "
            f"{profile.name} --key NAME`; store the key with `judgeaudit key set NAME`)"
        )
    return mode


def as_command(table: dict[str, Any]) -> dict[str, Any]:
    """``table`` with its ``env_key`` turned into an ``auth`` command printing that variable:
    the same key, in the form a table of the same id elsewhere uses (Codex refuses ``auth``
    merged with ``env_key``)."""
    command, *args = authcmd.print_env(str(table.pop("env_key")))
    table["auth"] = {"command": command, "args": args, "timeout_ms": AUTH_TIMEOUT_MS}
    return table


def parse(path: Path, raw: bytes) -> dict[str, Any]:
    """The file's data, or one line naming the file, line and column of what is wrong."""
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
        return tomllib.loads(text)
    except UnicodeDecodeError:
        raise ProfileError(f"{path}: not UTF-8 text; nothing was changed") from None
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        lines = text.rstrip().splitlines() or [""]
        at = f":{where.group(1)}:{where.group(2)}" if where else f":{len(lines)}:{len(lines[-1])}"
        msg = str(exc).split(" (at ")[0]
        raise ProfileError(
            f"{path}{at}: invalid TOML ({msg}); fix it or move it aside, nothing was changed"
        ) from None


def provider_table(profile: Profile) -> dict[str, Any]:
    """The ``[model_providers.<id>]`` table this profile needs, as plain data."""
    # A bridge = "chat" profile's upstream only serves chat completions: Codex talks to the
    # local bridge, which speaks Responses (profiles.bridgeopt).
    base_url = (
        bridgeopt.local_url(profile) + "/v1" if bridgeopt.uses_bridge(profile) else profile.base_url
    )
    table: dict[str, Any] = {
        "name": f"{profile.name} {OURS_SUFFIX}",
        "base_url": base_url,
        "wire_api": "responses",
    }
    if key_mode(profile) == "command":  # a bridged profile's is (its local token's command)
        command, *args = (
            bridgeopt.token_command(profile)
            if bridgeopt.uses_bridge(profile)
            else authcmd.key_print(str(profile.key))
        )
        table["auth"] = {"command": command, "args": args, "timeout_ms": AUTH_TIMEOUT_MS}
    else:
        table["env_key"] = env_key_name(profile)
    extra = profile.option("provider") or {}
    table.update({k: v for k, v in extra.items() if k not in table})  # query_params, headers...
    return table


def table_raw(value: Any) -> str:
    """One canonical text per table, for fingerprints and the ledger."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


#: The order a provider table's keys are written in (the rest follow, sorted).
TABLE_ORDER = ("name", "base_url", "wire_api", "env_key", "auth")


def ordered(table: dict[str, Any]) -> dict[str, Any]:
    first = {k: table[k] for k in TABLE_ORDER if k in table}
    return {**first, **{k: table[k] for k in sorted(table) if k not in first}}


def _root_line(key: str, raw: str) -> str:
    """A root key's whole line (older ledgers kept only the value, ``"gpt-5"``)."""
    if re.match(rf"\s*({re.escape(key)}|{re.escape(render_key(key))})\s*=", raw):
        return raw
    return f"{key} = {raw}"


class ConfigDoc:
    """The :class:`~judgeaudit.profiles.ledger.Editable` view of a Codex config.

    Root keys are owned as whole lines (the user's own line, comment included, is what comes
    back at ``off``; their comment never annotates our value); provider tables as data.
    ``seps`` is what was put before each table judgeaudit added, so removing it is exact."""

    def __init__(self, text: TomlText, seps: dict[str, str | None]) -> None:
        self.text = text
        self.seps = seps

    def _data(self) -> dict[str, Any]:
        try:
            return tomllib.loads(self.text.text.removeprefix("\ufeff"))
        except tomllib.TOMLDecodeError:
            return {}

    @staticmethod
    def _table(dotted: str) -> tuple[str, ...]:
        return ("model_providers", dotted.split(".", 1)[1])

    def current_raw(self, dotted: str) -> str | None:
        if dotted.startswith("model_providers."):
            providers = self._data().get("model_providers")
            ident = dotted.split(".", 1)[1]
            if not isinstance(providers, dict) or ident not in providers:
                return None
            return table_raw(providers[ident])
        found = self.text.root_key(dotted)
        return None if found is None else self.text.line_of(found)

    def put_raw(self, dotted: str, raw: str, index: int | None = None) -> None:
        if dotted.startswith("model_providers."):
            sep = self.text.set_table(self._table(dotted), ordered(json.loads(raw)))
            if sep is not None:
                self.seps[dotted] = sep
            return
        self.text.set_root(dotted, _root_line(dotted, raw))

    def remove(self, dotted: str) -> None:
        if dotted.startswith("model_providers."):
            self.text.remove_table(self._table(dotted), self.seps.pop(dotted, None))
        elif dotted != "model_providers":
            self.text.remove_root(dotted)

    def index_of(self, dotted: str) -> int | None:
        return None  # values are replaced where they are

    def siblings(self, dotted: str) -> list[str]:
        return []  # no order kept: a line is replaced where it is

    def ensure_container(self, dotted: str) -> bool:
        value = self._data().get(dotted)
        if value is not None and not isinstance(value, dict):
            raise ProfileError(f"config.toml: {dotted} must be a table; nothing was changed")
        return False  # [model_providers.<id>] headers need no [model_providers] of their own

    def container_empty(self, dotted: str) -> bool:
        return False


def _adopt_or_refuse(
    path: Path, data: dict[str, Any], ident: str, ledger: dict[str, Entry], profile_name: str
) -> None:
    """Refuse to replace a provider table someone else wrote (issue: data loss)."""
    dotted = f"model_providers.{ident}"
    providers = data.get("model_providers")
    if dotted in ledger or not isinstance(providers, dict) or ident not in providers:
        return
    table = providers[ident]
    name = table.get("name", "") if isinstance(table, dict) else ""
    if isinstance(name, str) and name.endswith(OURS_SUFFIX):  # an earlier judgeaudit wrote it
        ledger[dotted] = {"had": False, "wrote": fingerprint(table_raw(table))}
        return
    raise ProfileError(
        f"{path}: [model_providers.{ident}] was not written by judgeaudit and a switch would "
        f"replace it; give this profile another id (`judgeaudit profile edit {profile_name} --option "
        f"provider_id=OTHER`) or remove that table yourself; nothing was changed"
    )


def _migrate(ledger: dict[str, Entry], text: TomlText) -> None:
    """Ledgers written before root keys were owned as whole lines kept only the value."""
    for key in ROOT_KEYS:
        entry = ledger.get(key)
        found = text.root_key(key)
        if not entry or "wrote" not in entry or found is None:
            continue
        line = text.line_of(found)
        try:
            value = json.dumps(tomllib.loads(line).get(key), ensure_ascii=False)
        except tomllib.TOMLDecodeError:
            continue
        if entry["wrote"] == fingerprint(value):  # what judgeaudit wrote then: still ours
            entry["wrote"] = fingerprint(line)


def _others(data: dict[str, Any], owned: set[str]) -> dict[str, Any]:
    """The document without what judgeaudit owns (to prove an edit touched nothing else)."""
    out = {k: v for k, v in data.items() if k not in owned}
    providers = data.get("model_providers")
    if isinstance(providers, dict):
        kept = {k: v for k, v in providers.items() if f"model_providers.{k}" not in owned}
        if kept:
            out["model_providers"] = kept
        else:
            out.pop("model_providers", None)
    return out


def plan_file(
    path: Path,
    raw: bytes | None,
    profile: Profile | None,
    ledger: dict[str, Entry],
    load_secret: Callable[[str], str | None],
    *,
    kind: FileKind = "codex",
    created: bool = False,
    auth_command: bool = False,
) -> FilePlan:
    """Plan ``config.toml`` (kind ``codex``) or ``<name>.config.toml`` (``codex-profile``);
    ``auth_command``: the provider table takes its key through an ``auth`` command even for an
    ``env_key`` profile (:mod:`~judgeaudit.profiles.targets.codexauth`)."""
    data_before = parse(path, raw) if raw is not None else {}
    source = raw.decode("utf-8") if raw is not None else ""
    if raw is None and profile is not None and kind == "codex-profile":
        source = f"# judgeaudit profile {profile.name}: use with `codex -p {profile.name}`\n\n"
    text = TomlText(source)
    ledger = {k: dict(v) for k, v in ledger.items()}
    _migrate(ledger, text)
    want: dict[str, str] = {}
    if profile is not None:
        ident = provider_id(profile)
        _adopt_or_refuse(path, data_before, ident, ledger, profile.name)
        if profile.model:
            want["model"] = "model = " + json.dumps(profile.model, ensure_ascii=False)
        want["model_provider"] = "model_provider = " + json.dumps(ident)
        for key, value in (profile.option("config") or {}).items():  # model_reasoning_effort...
            want[key] = f"{render_key(key)} = {render_value(value)}"
        table = provider_table(profile)
        if auth_command and "env_key" in table:
            table = as_command(table)
        want[f"model_providers.{ident}"] = table_raw(table)
    seps = {d: e.get("sep") for d, e in ledger.items() if d.startswith("model_providers.")}
    doc = ConfigDoc(text, seps)
    reconciler = Reconciler(
        doc, str(path), frozenset(), load_secret, containers=frozenset({"model_providers"})
    )
    outcome = reconciler.reconcile(want, ledger, [])
    for dotted, entry in outcome.ledger.items():
        if dotted in doc.seps:
            entry["sep"] = doc.seps[dotted]
        entry.pop("trail", None)  # the tomlkit-era record of the file's end
    owned = set(ledger) | set(outcome.ledger) | set(want)
    try:
        data_after = tomllib.loads(text.text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        data_after = {"#invalid": str(exc)}
    if _others(data_after, owned) != _others(data_before, owned):
        raise ProfileError(
            f"{path}: judgeaudit cannot edit this file's layout safely (model_providers written "
            "inline or as dotted keys?); write [model_providers.<id>] tables, nothing was changed"
        )
    warnings = []
    if profile is not None and kind == "codex" and "profile" in data_before:
        warnings.append(
            f"{path} has a legacy `profile = ...` line: Codex refuses to start while it is "
            "there, whatever the switch writes; judgeaudit leaves it, delete it by hand "
            "(`judgeaudit profile doctor codex` says how)"
        )
    after: bytes | None = text.text.encode("utf-8")
    if profile is None and created and not data_after:
        after = None  # judgeaudit created this file and nothing of the user's is in it
    if raw is None and profile is None:
        after = None
    return FilePlan(
        path,
        raw,
        after,
        kind=kind,
        ledger=outcome.ledger,
        notes=outcome.notes,
        warnings=warnings,
    )


def validate(path: Path, written: bytes, plan_: FilePlan) -> None:
    data = parse(path, written)
    if written != plan_.after:
        raise ProfileError(f"{path}: read-back differs from what was written")
    if not any(d.startswith("model_providers.") for d in plan_.ledger):
        return  # judgeaudit off: nothing of ours left; a model_provider left is the user's own
    provider, providers = data.get("model_provider"), data.get("model_providers")
    table = (
        providers.get(provider)
        if isinstance(providers, dict) and isinstance(provider, str)
        else None
    )
    if not isinstance(table, dict) or table.get("wire_api") != "responses":
        raise ProfileError(f"{path}: read-back lacks the provider table it should have")

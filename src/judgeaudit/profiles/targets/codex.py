"""Codex ``config.toml`` (and ``<name>.config.toml`` for ``codex -p``), edited with tomlkit so
comments, formatting and unrelated tables survive; only the keys judgeaudit owns are reconciled.

Provider ids: ``options.provider_id`` or one id per gateway derived from the base URL's host
(``taotoken.net`` -> ``taotoken``). Codex files sessions under the provider id and ``codex
resume`` shows those of the current one, so every profile for the same gateway shares an id and
changing a model or profile keeps the history visible.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import tomlkit
from tomlkit.exceptions import ParseError
from tomlkit.items import InlineTable, Table
from tomlkit.toml_document import TOMLDocument

from judgeaudit.profiles import bridgeopt
from judgeaudit.profiles.ledger import Entry, Reconciler, fingerprint
from judgeaudit.profiles.model import BUILTIN_CODEX_PROVIDERS, Profile, ProfileError
from judgeaudit.profiles.targets import FilePlan

OURS_SUFFIX = "(judgeaudit)"
LOOPBACK = ("localhost", "::1")
#: Codex waits 5 s for an auth command by default; a busy machine can need more than that.
AUTH_TIMEOUT_MS = 15000


def default_provider_id(base_url: str) -> str:
    parts = urlsplit(base_url)
    host = (parts.hostname or "local").lower()
    if host in LOOPBACK or host.startswith("127."):
        ident = f"local-{parts.port or 80}"
    else:
        labels = [x for x in host.split(".") if x not in ("api", "www")]
        ident = labels[0] if len(labels) > 1 else host
    ident = re.sub(r"[^a-z0-9_-]+", "-", ident).strip("-") or "gateway"
    return f"{ident}-api" if ident in BUILTIN_CODEX_PROVIDERS else ident


def provider_id(profile: Profile) -> str:
    given = profile.option("provider_id")
    ident = str(given) if given else default_provider_id(profile.base_url)
    if ident in BUILTIN_CODEX_PROVIDERS:
        raise ProfileError(f"profile {profile.name!r}: {ident!r} is a built-in Codex provider id")
    return ident


def env_key_name(profile: Profile) -> str:
    given = profile.option("env_key") or profile.key_env
    if given:
        return str(given)
    return re.sub(r"[^A-Z0-9]", "_", f"JUDGEAUDIT_{profile.name.upper()}_KEY")


def parse(path: Path, raw: bytes) -> TOMLDocument:
    try:
        return tomlkit.parse(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ProfileError(f"{path}: not UTF-8 text; nothing was changed") from None
    except ParseError as exc:
        raise ProfileError(
            f"{path}:{exc.line}:{exc.col}: invalid TOML ({str(exc).split(' at line')[0]}); fix it or "
            "move it aside, nothing was changed"
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
    if profile.option("key_mode", "command") == "command":
        if not profile.key:
            raise ProfileError(
                f"profile {profile.name!r}: key_mode command needs key = <keyring entry>"
            )
        table["auth"] = {
            "command": sys.executable,
            "args": ["-m", "judgeaudit", "key", "print", profile.key],
            "timeout_ms": AUTH_TIMEOUT_MS,
        }
    else:
        table["env_key"] = env_key_name(profile)
    return table


def _inline(value: dict[str, Any]) -> InlineTable:
    table = tomlkit.inline_table()
    for key, item in value.items():
        table[key] = _inline(item) if isinstance(item, dict) else item
    return table


def _table_raw(value: Any) -> str:
    """One canonical text per table, for fingerprints and the ledger."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


class ConfigDoc:
    """The :class:`~judgeaudit.profiles.ledger.Editable` view of a Codex config."""

    def __init__(self, doc: TOMLDocument) -> None:
        self.doc = doc

    def _providers(self) -> Any:
        return self.doc.get("model_providers")

    def current_raw(self, dotted: str) -> str | None:
        if dotted.startswith("model_providers."):
            providers = self._providers()
            ident = dotted.split(".", 1)[1]
            if not isinstance(providers, dict) or ident not in providers:
                return None
            return _table_raw(providers[ident].unwrap())
        if dotted not in self.doc:
            return None
        item: Any = self.doc.item(dotted)
        return str(item.as_string()).strip()

    def put_raw(self, dotted: str, raw: str, index: int | None = None) -> None:
        if dotted.startswith("model_providers."):
            table = tomlkit.table()
            for key, value in json.loads(raw).items():
                table[key] = _inline(value) if isinstance(value, dict) else value
            self._providers()[dotted.split(".", 1)[1]] = table
            return
        new: Any = tomlkit.parse(f"v = {raw}").item("v")
        if dotted in self.doc:  # keep the line's comment and spacing
            old: Any = self.doc.item(dotted)
            for part in ("indent", "comment_ws", "comment", "trail"):
                setattr(new.trivia, part, getattr(old.trivia, part))
            self.doc[dotted] = new
        else:  # a plain value gets tomlkit's own placement and line end
            self.doc[dotted] = new.unwrap()

    def remove(self, dotted: str) -> None:
        if dotted.startswith("model_providers."):
            providers = self._providers()
            if isinstance(providers, dict):
                providers.pop(dotted.split(".", 1)[1], None)
        elif dotted in self.doc:
            del self.doc[dotted]

    def index_of(self, dotted: str) -> int | None:
        return None  # tomlkit keeps positions of values it replaces

    def ensure_container(self, dotted: str) -> bool:
        if dotted in self.doc:
            if not isinstance(self.doc[dotted], Table | dict):
                raise ProfileError(f"config.toml: {dotted} must be a table; nothing was changed")
            return False
        self.doc[dotted] = tomlkit.table(is_super_table=True)
        return True

    def container_empty(self, dotted: str) -> bool:
        value = self.doc.get(dotted)
        return isinstance(value, dict) and not value


def _adopt_or_refuse(path: Path, doc: TOMLDocument, ident: str, ledger: dict[str, Entry]) -> None:
    """Refuse to replace a provider table someone else wrote (issue: data loss)."""
    dotted = f"model_providers.{ident}"
    providers = doc.get("model_providers")
    if dotted in ledger or not isinstance(providers, dict) or ident not in providers:
        return
    table = providers[ident]
    name = table.get("name", "") if isinstance(table, dict) else ""
    if isinstance(name, str) and name.endswith(OURS_SUFFIX):  # an earlier judgeaudit wrote it
        ledger[dotted] = {"had": False, "wrote": fingerprint(_table_raw(table.unwrap()))}
        return
    raise ProfileError(
        f"{path}: [model_providers.{ident}] was not written by judgeaudit and a switch would "
        f"replace it; give this profile another id (`judgeaudit profile edit NAME --option "
        f"provider_id=OTHER`) or remove that table yourself; nothing was changed"
    )


def plan_file(
    path: Path,
    raw: bytes | None,
    profile: Profile | None,
    ledger: dict[str, Entry],
    load_secret: Callable[[str], str | None],
    *,
    kind: str = "codex",
    created: bool = False,
) -> FilePlan:
    """Plan ``config.toml`` (kind ``codex``) or ``<name>.config.toml`` (``codex-profile``)."""
    doc = parse(path, raw) if raw is not None else tomlkit.document()
    if raw is None and profile is not None and kind == "codex-profile":
        doc.add(
            tomlkit.comment(
                f"judgeaudit profile {profile.name}: use with `codex -p {profile.name}`"
            )
        )
    ledger = {k: dict(v) for k, v in ledger.items()}
    want: dict[str, str] = {}
    if profile is not None:
        ident = provider_id(profile)
        _adopt_or_refuse(path, doc, ident, ledger)
        if profile.model:
            want["model"] = json.dumps(profile.model, ensure_ascii=False)
        want["model_provider"] = json.dumps(ident)
        want[f"model_providers.{ident}"] = _table_raw(provider_table(profile))
    text_before = tomlkit.dumps(doc)
    trail = text_before[len(text_before.rstrip()) :]
    reconciler = Reconciler(
        ConfigDoc(doc),
        str(path),
        frozenset(),
        load_secret,
        containers=frozenset({"model_providers"}),
    )
    outcome = reconciler.reconcile(want, ledger, [])
    text = tomlkit.dumps(doc)
    for dotted, entry in outcome.ledger.items():
        if dotted.startswith("model_providers.") and "trail" not in entry:
            entry["trail"] = trail  # what the file ended with before this table was added
    removed_tables = [
        e for d, e in ledger.items() if d.startswith("model_providers.") and d not in outcome.ledger
    ]
    if removed_tables and "trail" in removed_tables[0]:
        text = text.rstrip() + removed_tables[0]["trail"]
    warnings = []
    if profile is not None and kind == "codex" and ("profile" in doc or "profiles" in doc):
        warnings.append(
            f"{path} has a legacy `profile` key or [profiles.*] tables that current Codex "
            "rejects; judgeaudit leaves them, remove them by hand"
        )
    after: bytes | None = text.encode("utf-8")
    if profile is None and created and not tomlkit.parse(text).unwrap():
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
    doc = parse(path, written)
    if written != plan_.after:
        raise ProfileError(f"{path}: read-back differs from what was written")
    provider = doc.get("model_provider")
    if provider is None and not any(d.startswith("model_providers.") for d in plan_.ledger):
        return  # judgeaudit off: nothing of ours left to check
    providers: Any = doc.get("model_providers", {})
    if provider not in providers or providers[provider].get("wire_api") != "responses":
        raise ProfileError(f"{path}: read-back lacks the provider table it should have")

"""Importing profiles from the plain JSON list ``{"profiles": [{"name", "app", "base_url",
"api_key_env"}]}``, and what every importer shares (CC Switch: :mod:`.ccswitch`).

Keys found go into the keyring, never into profile files or messages.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from judgeaudit import safeio
from judgeaudit.profiles import secrets
from judgeaudit.profiles.keysource import Imported, check_has_key
from judgeaudit.profiles.model import Profile, ProfileError, profile_from_dict
from judgeaudit.profiles.names import NAME_MAX
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.redact import looks_like_key, redact

APP_ALIASES = {"claude": "claude", "codex": "codex", "terminal": "sdk", "sdk": "sdk"}
#: The JSON list's own name for a profile field it names differently.
FILE_NAMES = {"key_env": "api_key_env"}
#: An entry of the JSON list without a key: only its variable can be given.
FILE_KEYLESS = Imported(
    "no api_key_env", 'give the entry "api_key_env": "VAR" (the variable holding its key)'
)


@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "name: reason", never a key
    keys_stored: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # profile -> the original name
    flagged: list[str] = field(default_factory=list)  # imported, but needs something to work
    current: dict[str, str] = field(default_factory=dict)  # app -> profile CC Switch has current
    current_skipped: dict[str, str] = field(default_factory=dict)  # app -> its provider's name
    plaintext: list[str] = field(default_factory=list)  # where keys still sit in plain text


@dataclass
class Batch:
    """An import in progress: the names that exist, and the keys to write at the end."""

    existing: set[str]
    keys: list[tuple[str, str]] = field(default_factory=list)
    entries: dict[str, str] = field(default_factory=dict)  # key -> the entry holding it


def slug(text: str) -> str:
    """Lowercase ASCII letters, digits, '-', '_' (empty for a name with none, e.g. "智谱")."""
    return re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-_")[:NAME_MAX]


def store_profile(
    store: ProfileStore,
    report: ImportReport,
    data: dict[str, Any],
    key: str | None,
    where: str,
    scrub: set[str] | None = None,
    batch: Batch | None = None,
    renamed: dict[str, str] | None = None,
    label: str = "",
    keyless: Imported | None = None,
) -> bool:
    """Validate and save one imported profile (its key to the keyring); report, never echo keys.

    With a ``batch``, existence is looked up in its snapshot and keys are queued for one write
    at the end (see :mod:`.importtx`). ``renamed``: profile field -> the name the user's file
    gives it, so a refusal names the field the user wrote (``api_key_env``, not ``key_env``).
    ``label``: the entry's own name when the profile's differs, said beside it.
    ``keyless``: refuse an entry without a key as `profile add` does (:mod:`.keysource`),
    in these words."""
    name = data["name"]
    hide = {key, *(scrub or set())}
    shown = f"{name} ({label})" if label else name
    if (name in batch.existing) if batch is not None else store.exists(name):
        report.skipped.append(f"{shown}: a profile with this name exists (remove it to re-import)")
        return False
    try:
        if key:
            data["key"] = name
        profile = profile_from_dict({k: v for k, v in data.items() if v is not None}, where)
        if keyless:
            check_has_key(profile, where, keyless)
    except ProfileError as exc:
        said = str(exc)
        for ours, theirs in (renamed or {}).items():
            said = said.replace(f"{where}: {ours}:", f"{where}: {theirs}:")
        report.skipped.append(redact(f"{shown}: {said}", hide))
        return False
    if key and batch is not None:
        entry = batch.entries.setdefault(key.strip(), name)  # one entry per distinct key
        if entry != name:
            profile = replace(profile, key=entry)
        else:
            batch.keys.append((name, key))
        report.keys_stored.append(name)
    elif key:
        secrets.set_key(name, key)
        report.keys_stored.append(name)
    if batch is not None:
        batch.existing.add(name)
    store.save(profile, durable=batch is None)  # a batch syncs once (importtx.commit)
    report.imported.append(name)
    if label:
        report.labels[name] = label
    return True


def import_json_list(store: ProfileStore, path: Path) -> ImportReport:
    try:
        data = safeio.parse_json(safeio.read_bytes(path, "profile list", ProfileError).decode())
    except safeio.TooDeep:
        raise ProfileError(safeio.too_deep(str(path), "profile list")) from None
    except UnicodeDecodeError:
        raise ProfileError(f"{path}: not UTF-8 text; nothing was imported") from None
    except json.JSONDecodeError as exc:
        raise ProfileError(
            f"{path}:{exc.lineno}:{exc.colno}: invalid JSON ({safeio.json_problem(exc)})"
        ) from None
    items = data.get("profiles") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ProfileError(f'{path}: expected {{"profiles": [...]}}')
    report, taken = ImportReport(), set[str]()
    # the names an entry gives exactly: kept by its first entry, so a renamed entry ("gw-网")
    # or a second "gw" takes a suffix no entry gives exactly ("gw-2" is the file's own)
    exact = {n for i in items if isinstance(i, dict) for n in [i.get("name")] if n == slug(str(n))}
    for index, item in enumerate(items):
        where = f"{path}: profiles[{index}]"
        if not isinstance(item, dict) or "name" not in item:
            report.skipped.append(f"{where}: not an object with a name")
            continue
        app = APP_ALIASES.get(str(item.get("app", "")))
        if app is None:
            report.skipped.append(
                f"{item['name']}: app {item.get('app')!r} is not claude, codex or terminal/sdk"
            )
            continue
        if looks_like_key(str(item["name"])):
            report.skipped.append(f"{where}: name looks like an API key; not imported or shown")
            continue
        stem = slug(str(item["name"])) or f"imported-{index + 1}"
        kept = stem == item["name"] and stem not in taken  # an exact name's first use only
        name = unique_name(stem, taken, set() if kept else exact)  # a later one: no exact name
        given = json.dumps(str(item["name"]), ensure_ascii=False)
        label = "" if name == item["name"] else f"{given} in the file"
        entry = {
            "name": name,
            "app": app,
            "base_url": item.get("base_url", ""),
            "model": item.get("model"),
            "key_env": item.get("api_key_env"),
        }
        store_profile(
            store,
            report,
            entry,
            None,
            where,
            renamed=FILE_NAMES,
            label=label,
            keyless=FILE_KEYLESS,  # a keyless entry: skipped, as `add` refuses
        )
    return report


def unique_name(stem: str, taken: set[str], reserved: set[str]) -> str:
    """``stem``, or ``stem-2``, ``stem-3``, ... : the first neither ``taken`` nor ``reserved``
    holds (added to ``taken``). Two entries of one import whose names slug alike ("gw-网",
    "gw") never become one profile, nor is the second skipped as a profile that exists."""
    name, n = stem, 2
    while name in taken or name in reserved:
        suffix = f"-{n}"
        name, n = stem[: NAME_MAX - len(suffix)] + suffix, n + 1
    taken.add(name)
    return name


def imported_profiles(store: ProfileStore, report: ImportReport) -> list[Profile]:
    return [store.get(name) for name in report.imported]

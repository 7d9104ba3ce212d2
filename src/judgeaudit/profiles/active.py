"""Which profile is active here, and who uses a key.

The active marker belongs to the live file a switch wrote, so ``CLAUDE_CONFIG_DIR`` and
``CODEX_HOME`` each have their own (``state.json``'s ``active_at``); ``list``, ``doctor``,
``edit``, ``remove``, the backups and the TUI all read it through :func:`here`. Whether that
file is still what the profile would write is :mod:`.drift`'s (it plans a switch, so it sits
above the switch; this module sits below it).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from judgeaudit.profiles import project
from judgeaudit.profiles.execguard import CLIENTS
from judgeaudit.profiles.livefile import read_live
from judgeaudit.profiles.model import APPS, ProfileError
from judgeaudit.profiles.paths import live_file
from judgeaudit.profiles.store import ProfileStore, SwitchState
from judgeaudit.profiles.targets import registry


def here(state: SwitchState) -> dict[str, str]:
    """App -> the profile active in this environment's live file (the SDK's: its reminder)."""
    at = state.get("active_at", {})
    out: dict[str, str] = {}
    for app in APPS:
        path = live_file(app)
        name = state["active"].get(app) if path is None else at.get(str(path))
        if name:
            out[app] = name
    return out


def record(state: SwitchState, app: str, name: str | None) -> None:
    """Mark ``name`` active for ``app`` in this environment's live file (None: none)."""
    path = live_file(app)
    table = state["active"] if path is None else state.setdefault("active_at", {})
    key = app if path is None else str(path)
    if name is None:
        table.pop(key, None)
    else:
        table[key] = name


def record_at(state: SwitchState, path: str, name: str | None) -> None:
    """Mark ``name`` active in the live file ``path`` (a restore puts back that file's own)."""
    table = state.setdefault("active_at", {})
    if name is None:
        table.pop(path, None)
    else:
        table[path] = name


class KeyUse(NamedTuple):
    """Where a profile reading a key is switched on: ``path`` the live file (``""`` for the
    SDK's reminder), ``project`` the directory of a project binding (``""``: global)."""

    app: str
    name: str
    path: str = ""
    project: str = ""
    by_file: bool = False  # found by reading the file, whatever its profile says now
    since: str = ""  # what became of that profile since it was written ("edited", ...)
    table: str = ""  # the id of a Codex table read only with `-c model_provider=ID`


def key_users(store: ProfileStore, key: str) -> tuple[list[str], list[KeyUse]]:
    """The profiles whose keyring entry is ``key``, and each place where one of them is
    switched on: a live file, in this environment or another (a ``CLAUDE_CONFIG_DIR``'s), or a
    project's settings file (``profile use NAME --project``); deleting the key breaks every
    one of them. ``key delete`` and the TUI's ``K`` both ask this. A use whose key mode reads
    no keyring entry (claude ``inline``/``env``, codex ``env_key``) is none: deleting the key
    breaks nothing there (:meth:`~judgeaudit.profiles.targets.registry.Target.reads_key`).
    Every file judgeaudit wrote that still runs ``key print KEY`` is one too, marked
    ``by_file``: its profile edited, removed or not loading since, or Codex's
    ``NAME.config.toml`` left after another profile was switched on. So is each Codex table
    reading it that the file does not select (``table``: Codex runs its ``auth`` command only
    when started with ``-c model_provider=ID``), unless the file reads the key anyway."""
    everyone = store.list()
    profiles = [p for p in everyone if p.key == key]
    users = sorted(p.name for p in profiles)
    readers = [p.name for p in profiles if registry.for_app(p.app).reads_key(p)]
    uses = [use for use in _uses(store, users) if use.name in readers]
    placed = {(use.path, use.project) for use in uses}
    for use in _written(store):
        if (use.path, use.project) in placed:
            continue
        selected, if_asked = _keys_read(use)
        if key in selected:
            placed.add((use.path, use.project))
            uses.append(use._replace(by_file=True, since=_since(store, use.name, readers, use.app)))
        else:
            uses += [use._replace(by_file=True, table=t) for t in if_asked.get(key, [])]
    return users, uses


def _since(store: ProfileStore, name: str, readers: list[str], app: str) -> str:
    """What became of profile ``name`` since its ``app`` file was written (``""``: it still
    reads the key, in a file no switch counts: Codex's ``NAME.config.toml`` for ``codex -p``)."""
    if not store.exists(name):
        return "removed since"
    try:
        profile = store.get(name)
    except ProfileError:
        return "its profile file does not load now"
    if profile.app != app:  # `profile edit --app`: the old app's file is no longer its
        return f"a {profile.app} profile since"
    return "" if name in readers else "edited since"


def _written(store: ProfileStore) -> list[KeyUse]:
    """Every file judgeaudit wrote a profile into: the live files state.json records (``owned``,
    ``active_at``; a Codex ``NAME.config.toml`` stays, whoever is active) and the project
    bindings, each named from that record, so a removed or broken profile's file is read too."""
    state = store.state()
    at = state.get("active_at", {})
    out = []
    for path in sorted(set(state["owned"]) | set(at)):
        app, name = _written_by(Path(path), at.get(path))
        if name:
            out.append(KeyUse(app, name, path))
    return out + _bindings(state, None, store)


def _written_by(path: Path, active: str | None) -> tuple[str, str | None]:
    """The app and profile of a live file: Codex's are TOML, its ``NAME.config.toml`` named
    after the profile (:meth:`~judgeaudit.profiles.targets.registry.CodexTarget.files`)."""
    if path.suffix != ".toml":
        return "claude", active
    named = path.name.removesuffix(".config.toml")
    return "codex", active or (named if path.name != "config.toml" else None)


def _keys_read(use: KeyUse) -> tuple[set[str], dict[str, list[str]]]:
    """The keyring entries ``use``'s live file has its tool read, and those it reads only when
    asked (:meth:`~judgeaudit.profiles.targets.registry.Target.keys_read_if_asked`); none when
    the file is unreadable: doctor and the switch say why."""
    path = Path(use.path)
    try:
        raw = read_live(path)
        if raw:
            target = registry.for_app(use.app)
            return target.keys_read(path, raw), target.keys_read_if_asked(path, raw)
    except (ProfileError, OSError, ValueError):
        pass
    return set(), {}


def file_uses(store: ProfileStore, name: str) -> list[KeyUse]:
    """Where ``name`` is switched on in a file (a live file here or in another config dir, a
    project binding): what an edit of the profile leaves reading its old values until
    ``profile use`` (the SDK has no file)."""
    return [use for use in _uses(store, [name]) if use.path or use.project]


def _uses(store: ProfileStore, users: list[str]) -> list[KeyUse]:
    state = store.state()
    live = []
    for path, name in sorted(state.get("active_at", {}).items()):
        if name in users and store.exists(name):
            app = _written_by(Path(path), name)[0]
            if app == store.get(name).app:  # else `edit --app` since: read as a file
                live.append(KeyUse(app, name, path))
    live += [
        KeyUse(app, name)  # the SDK's reminder: no file
        for app, name in sorted(state["active"].items())
        if live_file(app) is None and name in users
    ]
    live += _bindings(state, users, store)
    return live


def _bindings(state: SwitchState, users: list[str] | None, store: ProfileStore) -> list[KeyUse]:
    """The project bindings of ``users`` (None: of any name, loaded or not) whose settings file
    is there (one whose file is gone reads nothing; a hand-edited entry of the wrong shape is
    no binding)."""
    projects = state.get(project.STATE_KEY)
    out = []
    for directory, apps in sorted(projects.items() if isinstance(projects, dict) else ()):
        for app, name in sorted(apps.items() if isinstance(apps, dict) else ()):
            if app not in APPS or (
                users is not None and not (name in users and store.exists(name))
            ):
                continue
            try:
                file = project.settings_file(app, Path(directory))
            except ProfileError:
                continue  # an app no project can bind (Codex, sdk)
            if file.exists():
                out.append(KeyUse(app, name, str(file), directory))
    return out


def missing_key(store: ProfileStore, name: str) -> str | None:
    """When active profile ``name``'s keyring entry is gone: what fails and the fix."""
    from judgeaudit.profiles import secrets

    if not store.exists(name):
        return None
    profile = store.get(name)
    key = profile.key
    if not key or secrets.get_key(key) is not None:
        return None
    missing = f"key {key} (profile {name}'s) is missing from the keyring"
    path = live_file(profile.app)
    try:
        raw = (
            read_live(path)
            if path is not None and here(store.state()).get(profile.app) == name
            else None
        )
    except (ProfileError, OSError):
        raw = None  # doctor's own line says why the file cannot be read
    target = registry.for_app(profile.app)
    if path is not None and raw:
        tool = CLIENTS[profile.app]
        if target.token_held(path, raw):  # the file holds a token itself (key_mode inline)
            return (
                f"{missing}: {path} holds a key of its own, so {tool} goes on working, but "
                f"`judgeaudit profile use {name}` fails until `judgeaudit key set {key}`"
            )
        if key in target.keys_read(path, raw):
            return (
                f"{missing}: {path} runs `judgeaudit key print {key}` on every request, so "
                f"{tool}'s requests fail until `judgeaudit key set {key}`"
            )
    if mode := target.env_mode(profile):  # the tool takes its environment's (the target's rule)
        return (
            f"{missing}: {CLIENTS[profile.app]} does not read the keyring with key_mode {mode} "
            f"(it takes the key from the environment it starts in), so only `judgeaudit exec {name}` "
            f"and `judgeaudit env {name}` need it: {secrets.missing_key_fix(profile)}"
        )
    return f"{missing}: the app's requests fail until `judgeaudit key set {key}`"


def key_in_use(key: str, use: KeyUse) -> str:
    """What deleting ``key`` breaks: the active profile reads it on every request."""
    where = f" ({use.path})" if use.path else ""
    if use.table:  # read only by a start that asks for its table
        return (
            f"{use.path}: its [model_providers.{use.table}] table runs `judgeaudit key print "
            f"{key}`, which Codex uses only when started with `-c model_provider={use.table}`: "
            "such a start fails until the key is set again (or delete that table from the file)"
        )
    if use.by_file:  # the file written before reads it, whatever its profile says now
        apply = f"`judgeaudit profile use {use.name}" + (
            f" --project` in {use.project}" if use.project else "`"
        )
        since = f" ({use.since})" if use.since else ""
        off = f"`judgeaudit profile off {use.app}" + (
            f" --project {use.project}`" if use.project else "`"
        )
        fix = f"{apply} applies the edit" if use.since == "edited since" else f"{off} removes it"
        return (
            f"{use.path}, written when {use.name} was switched on for {use.app}{since}, "
            f"still reads key {key} on every request: {use.app} fails there until {fix} "
            "or the key is set again"
        )
    if use.project:
        return (
            f"{use.name} is bound to {use.project} for {use.app}{where} and reads key {key} on "
            f"every request there: {use.app} fails there until `judgeaudit profile off "
            f"{use.app} --project {use.project}` or the key is set again"
        )
    if not use.path:  # the SDK's: no file reads it, `exec` and `env` of the profile do
        return (
            f"{use.name} is the active {use.app} profile, whose key {key} `judgeaudit exec "
            f"{use.name}` and `judgeaudit env {use.name}` read: both fail until the key is set "
            f"again (a shell that loaded `judgeaudit env {use.name}` keeps its copy)"
        )
    return (
        f"{use.name} is active for {use.app}{where} and reads key {key} on every request: "
        f"{use.app} fails until another profile is switched in or the key is set again"
    )

"""Whether an active profile's live file still holds what the profile would write: the one
answer for ``profile list`` (its mark), ``doctor`` (a warning), ``profile edit`` and the TUI
(how to apply an edit). It plans the switch again without writing, so an edit since ``use``, or
a hand edit of the file, shows; nothing here writes the app's files."""

from __future__ import annotations

from collections.abc import Callable

from judgeaudit.profiles import active, secrets
from judgeaudit.profiles.livefile import read_live
from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.paths import live_file
from judgeaudit.profiles.secrets import SecretError
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import plan_app
from judgeaudit.profiles.targets import registry

#: what ``list`` adds after a drifted active profile (the TUI marks it ``*!``)
DRIFT_MARK = "(changed since use: run profile use)"


def drift(store: ProfileStore, app: str, name: str) -> str | None:
    """None when ``app``'s live files hold what ``name`` would write now; else why not, in a
    few words with the command that applies it (the SDK has no file: never drifted)."""
    if live_file(app) is None:
        return None
    if not store.exists(name):
        return f"{name} was removed since; `judgeaudit profile off {app}` gives you your own values back"
    try:
        profile = store.get(name)
        if profile.app != app:  # `profile edit --app` since: `use` would switch the other app
            return (
                f"{name} is a {profile.app} profile now; `judgeaudit profile off {app}` gives "
                "you your own values back"
            )
        try:
            plans = plan_app(store, app, profile)
        except SecretError:  # an inline profile's key gone (said once, as missing): the rest
            plans = plan_app(store, app, profile, load_secret=_as_in_file(app, profile))
    except SecretError:  # the keyring cannot answer at all: doctor's keyring line says so
        return None
    except ProfileError as exc:
        return f"{exc}"
    changed = [str(plan.path) for plan in plans if plan.changes]
    if not changed:
        return None
    return (
        f"{', '.join(changed)} no longer holds what {name} writes (edited since `profile use`); "
        f"`judgeaudit profile use {name}` applies it"
    )


def _as_in_file(app: str, profile: Profile) -> Callable[[str], str | None]:
    """The keyring, with ``profile``'s own gone key answered by the token its live file holds
    (only ``key_mode = "inline"`` writes one): the token cannot be compared without the key,
    the base URL and models still are. A file without a token gets a stand-in, which shows."""
    path = live_file(app)
    raw = read_live(path) if path is not None else None
    token = registry.for_app(app).token_held(path, raw) if path is not None and raw else None
    held = token or "(the key, gone from the keyring)"
    return lambda ref: secrets.get_key(ref) or (held if ref == profile.key else None)


def edit_note(store: ProfileStore, name: str) -> str | None:
    """After saving ``name``: that it is active here and how the change reaches the app."""
    apps = [app for app, marked in active.here(store.state()).items() if marked == name]
    for app in apps:
        if app == "sdk":
            return (
                f"{name} is the active sdk profile: `judgeaudit env {name}` / `exec` use the change"
            )
        if (moved := store.get(name).app) != app:
            return (
                f"{name} was active for {app} ({live_file(app)}) and is a {moved} profile now: "
                f"`judgeaudit profile off {app}` gives you your own values back there; "
                f"`judgeaudit profile use {name}` switches {moved}"
            )
        if drift(store, app, name) is not None:
            return (
                f"{name} is active for {app} ({live_file(app)}), which still holds the old "
                f"values: `judgeaudit profile use {name}` applies the change"
            )
    return None

"""Whether an active profile's live file still holds what the profile would write: the one
answer for ``profile list`` (its mark), ``doctor`` (a warning), ``profile edit`` and the TUI
(how to apply an edit). It plans the switch again without writing, so an edit since ``use``, or
a hand edit of the file, shows; nothing here writes the app's files."""

from __future__ import annotations

from judgeaudit.profiles import active
from judgeaudit.profiles.model import ProfileError
from judgeaudit.profiles.paths import live_file
from judgeaudit.profiles.secrets import SecretError
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import plan_app

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
        plans = plan_app(store, app, store.get(name))
    except SecretError:  # an inline profile's key gone: said once, as missing (doctor, list)
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


def edit_note(store: ProfileStore, name: str) -> str | None:
    """After saving ``name``: that it is active here and how the change reaches the app."""
    apps = [app for app, marked in active.here(store.state()).items() if marked == name]
    for app in apps:
        if app == "sdk":
            return (
                f"{name} is the active sdk profile: `judgeaudit env {name}` / `exec` use the change"
            )
        if drift(store, app, name) is not None:
            return (
                f"{name} is active for {app} ({live_file(app)}), which still holds the old "
                f"values: `judgeaudit profile use {name}` applies the change"
            )
    return None

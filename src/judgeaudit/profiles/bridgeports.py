"""Two bridged profiles switched on at once need their own ``bridge_port``s (docs/bridge.md,
'Global switch'): one tool's calls would reach the other profile's bridge and be turned away."""

from __future__ import annotations

from pathlib import Path

from judgeaudit.profiles import active, bridgeopt
from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.store import ProfileStore


def holder(store: ProfileStore, profile: Profile, project: bool = False) -> tuple[str, str] | None:
    """The (app, profile) switched on globally whose bridge has ``profile``'s ``bridge_port``.
    A profile of the same app is not in the way of a global switch (the switch replaces it); it
    is of a project binding (both stay live)."""
    if not bridgeopt.uses_bridge(profile):
        return None
    port = bridgeopt.bridge_port(profile)
    for app, name in sorted(active.here(store.state()).items()):
        if name == profile.name or (app == profile.app and not project):
            continue
        try:
            other = store.get(name)
        except ProfileError:  # removed since, or unreadable: doctor says so; not in the way
            continue
        if bridgeopt.uses_bridge(other) and bridgeopt.bridge_port(other) == port:
            return app, name
    return None


def port_clash(store: ProfileStore, profile: Profile, project: bool = False) -> str | None:
    """Why ``profile`` must not be switched in (or saved) with its ``bridge_port``: another
    profile switched on globally has its bridge there, so one tool's calls would reach the
    other's bridge and be turned away (401)."""
    found = holder(store, profile, project)
    if found is None:
        return None
    app, name = found
    # a profile being added is not there to edit yet (`profile add`, the app's form)
    fix = f" ({bridgeopt.port_fix(profile.name)})" if store.exists(profile.name) else ""
    return (
        f"profile {profile.name!r}: bridge_port {bridgeopt.bridge_port(profile)} is where "
        f"{name!r} (switched on globally for {app}) has its bridge, and two profiles used at "
        f"once need their own ports; nothing was changed: pick another{fix}"
    )


def doctor(store: ProfileStore, profile: Profile) -> list[str]:
    """``profile doctor``'s lines about an active profile's bridge. When another switched
    profile has its bridge on the same port, restarting the bridge as this one would break
    that switch: the line says to give this profile its own port instead."""
    if not bridgeopt.uses_bridge(profile):
        return []
    lines = bridgeopt.doctor(profile)
    found = holder(store, profile)
    if found is not None:
        app, name = found
        lines[0] = (
            f"bridge: {bridgeopt.local_url(profile)} is also the port of {name!r} (switched "
            f"on globally for {app}), so do not restart it as {profile.name}: give "
            f"{profile.name} its own ({bridgeopt.port_fix(profile.name)}, `judgeaudit "
            f"profile use {profile.name}`, then `judgeaudit bridge {profile.name}`)"
        )
    return lines


def save(store: ProfileStore, profile: Profile) -> Path:
    """The one way a profile the user wrote is saved (``profile add``, ``profile edit``, the
    app's form): refused in one line by :func:`port_clash`, nothing written, or saved."""
    refusal = port_clash(store, profile)
    if refusal:
        raise ProfileError(refusal)
    return store.save(profile)

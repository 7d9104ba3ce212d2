"""Two bridged profiles switched on at once need their own ``bridge_port``s (docs/bridge.md,
'Global switch'): one tool's calls would reach the other profile's bridge and be turned away."""

from __future__ import annotations

from judgeaudit.profiles import active, bridgeopt
from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.store import ProfileStore


def port_clash(store: ProfileStore, profile: Profile, project: bool = False) -> str | None:
    """Why ``profile`` must not be switched in (or saved) with its ``bridge_port``: another
    profile switched on globally has its bridge there, so one tool's calls would reach the
    other's bridge and be turned away (401). A profile of the same app is not in the way of a
    global switch (the switch replaces it); it is of a project binding (both stay live)."""
    if not bridgeopt.uses_bridge(profile):
        return None
    for app, name in sorted(active.here(store.state()).items()):
        if name == profile.name or (app == profile.app and not project):
            continue
        try:
            other = store.get(name)
        except ProfileError:  # removed since, or unreadable: doctor says so; not in the way
            continue
        port = bridgeopt.bridge_port(profile)
        if bridgeopt.uses_bridge(other) and bridgeopt.bridge_port(other) == port:
            return (
                f"profile {profile.name!r}: bridge_port {port} is where "
                f"{name!r} (switched on globally for {app}) has its bridge, and two profiles "
                "used at once need their own ports; nothing was changed: pick another "
                f"(`judgeaudit profile edit {profile.name} --option bridge_port=PORT`)"
            )
    return None


def unclashed(store: ProfileStore, profile: Profile) -> Profile:
    """``profile`` as ``profile edit`` saves it, or the one-line refusal of :func:`port_clash`."""
    refusal = port_clash(store, profile)
    if refusal:
        raise ProfileError(refusal)
    return profile

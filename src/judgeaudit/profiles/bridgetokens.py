"""When a bridged profile's local token changes with its key (docs/bridge.md, 'Global switch'):
``key set`` renews it (a new key is what a suspected leak gets), ``key delete`` drops it (what
it stood for is gone). One rule for the CLI and the app; the token itself is ``secrets``'."""

from __future__ import annotations

from judgeaudit.profiles import secrets
from judgeaudit.profiles.bridgeopt import uses_bridge
from judgeaudit.profiles.store import ProfileStore


def follow_key(store: ProfileStore, key: str, *, renew: bool) -> list[str]:
    """The bridged profiles using ``key``, whose tokens were renewed (``renew``) or dropped."""
    names = [p.name for p in store.scan()[0] if p.key == key and uses_bridge(p)]
    if renew:
        for name in names:
            secrets.bridge_token(name, renew=True)
    else:
        secrets.drop_bridge_tokens(names)
    return names


def renewed_note(names: list[str]) -> str:
    """What ``key set`` and the app's key entry say after renewing ``names``' tokens."""
    return (
        f"new local bridge token for {', '.join(names)} (a running bridge takes it and the "
        "new key within a second; nothing needs a restart)"
    )

"""``judgeaudit exec`` on a ``bridge = "chat"`` profile: a bridge for the life of one command.

The tool is pointed at the bridge as if it were the profile's endpoint: Codex through its
provider table (same provider id, so ``codex resume`` keeps its history), Claude Code through
``ANTHROPIC_BASE_URL``. Its key is a fresh random token the bridge accepts; the profile's real key
stays in this process and goes only upstream.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from judgeaudit.bridge.run import BackgroundBridge, config_for
from judgeaudit.profiles.bridgeopt import uses_bridge
from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.targets import codex

TOKEN_VAR = "JUDGEAUDIT_BRIDGE_TOKEN"


def through(profile: Profile, url: str) -> Profile:
    """The profile as the tool should see it: the bridge is its endpoint, the token its key."""
    options = {k: v for k, v in profile.options.items() if k not in ("bridge", "bridge_port")}
    if profile.app == "codex":
        # The provider id stays the one of the upstream, so `codex resume` finds the sessions.
        options.setdefault("provider_id", codex.provider_id(profile))
        options.update(key_mode="env_key", env_key=TOKEN_VAR)
    else:
        options.update(anthropic_base_url=url, key_mode="env")
        if profile.model:  # Claude Code's background calls (titles, summaries) use the small
            # model; a chat gateway rarely serves a Claude model id, so default it to ours.
            options.setdefault("small_fast_model", profile.model)
            options.setdefault("default_haiku_model", profile.model)
    return replace(profile, base_url=url + "/v1", key=None, key_env=TOKEN_VAR, options=options)


@contextmanager
def bridged(profile: Profile, key: str, app: str | None) -> Iterator[tuple[Profile, str]]:
    """Yield the (profile, key) to launch the command with: through a bridge started here when
    the profile wants one and the command is its tool (``app``, as exec recognised it), else
    the profile itself."""
    if not uses_bridge(profile) or app != profile.app:
        yield profile, key
        return
    said: list[str] = []  # the bridge's notices, printed once the command is done: Claude
    # Code's screen is the same terminal, and it shows a 404 as a model issue
    try:
        bridge = BackgroundBridge(config_for(profile, key, notice=said.append)).start()
    except OSError as exc:
        raise ProfileError(f"exec: cannot start the bridge on loopback: {exc.strerror}") from None
    try:
        yield through(profile, bridge.url), bridge.token
    finally:
        bridge.stop()
        for line in said:
            print(f"exec: bridge: {line}", file=sys.stderr)

"""The ``bridge`` profile option: a Codex or Claude Code profile on a gateway that only serves
Chat Completions.

With ``bridge = "chat"`` the profile's ``base_url`` is the gateway's OpenAI-compatible base (the
one ``/chat/completions`` hangs off) and the tool talks to a local ``judgeaudit bridge`` instead.
``judgeaudit exec`` starts one for the life of the command, on a free port. A global
``profile use`` points the tool at ``http://127.0.0.1:<bridge_port>`` (default 8787), where
``judgeaudit bridge NAME`` must be running (docs/bridge.md, 'Global switch': a systemd user unit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from judgeaudit.profiles.model import Profile

MODES = ("chat", "off")
DEFAULT_PORT = 8787
BRIDGED_APPS = ("claude", "codex")


def check_port(value: Any, where: str) -> str | None:
    """None when ``value`` is a usable port (an int or digits), else what is wrong."""
    text = str(value).strip()
    if isinstance(value, bool) or not text.isdigit() or not 1 <= int(text) <= 65535:
        return f"{where}: {value!r} is not a port (1-65535)"
    return None


def check(options: dict[str, Any], app: str, base_url: object, where: str) -> str | None:
    """What is wrong with a profile's bridge options, or its base URL for them, else None.

    The bridge sends ``base_url + "/chat/completions"`` and nothing else, so a URL that needs more
    is wrong before any request: Azure's deployment path (``/openai/deployments/NAME``) takes an
    ``api-version`` query the bridge never sends (a base URL may hold no query). A base URL
    without ``/v1`` may be right (DeepSeek serves ``/chat/completions`` at its root), so that
    one is said at use time, by the upstream's 404 (:mod:`judgeaudit.bridge.upstream`)."""
    if "bridge_port" in options and (
        problem := check_port(options["bridge_port"], f"{where}: options.bridge_port")
    ):
        return problem
    if not bridged(app, options) or not isinstance(base_url, str):
        return None
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(base_url.strip())
    except ValueError:
        return None  # check_base_url says what is wrong with it
    if "/openai/deployments" in parts.path.lower() and parts.hostname:
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        try:  # its scheme and port kept (a local proxy's http://HOST:PORT), never its userinfo
            port = f":{parts.port}" if parts.port else ""
        except ValueError:
            port = ""
        return (
            f"{where}: base_url: an Azure OpenAI deployment's URL needs an api-version query, "
            "which bridge = chat never sends (it calls base_url + /chat/completions); use the "
            f"resource's v1 base, {parts.scheme or 'https'}://{host}{port}/openai/v1, with the "
            "deployment's name as the model"
        )
    return None


def bridged(app: str, options: dict[str, Any]) -> bool:
    """Whether a profile of ``app`` with ``options`` goes through the bridge (its base URL is
    then the gateway's OpenAI-compatible one, whatever the app)."""
    return app in BRIDGED_APPS and options.get("bridge") == "chat"


def uses_bridge(profile: Profile) -> bool:
    return bridged(profile.app, profile.options)


def bridge_port(profile: Profile) -> int:
    return int(str(profile.option("bridge_port", DEFAULT_PORT)).strip())


def url_at(host: str, port: int) -> str:
    """How a bridge's URL is written (no path: it serves /v1/...); an IPv6 address bracketed."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def local_url(profile: Profile) -> str:
    """Where a globally switched tool finds the bridge."""
    return url_at("127.0.0.1", bridge_port(profile))


def port_fix(name: str = "PROFILE") -> str:
    """How to give a profile another ``bridge_port`` (every line that says so)."""
    return f"`judgeaudit profile edit {name} --option bridge_port=PORT`"


def token_command(profile: Profile) -> list[str]:
    """What the switched tool runs for its key (Claude Code's ``apiKeyHelper``, Codex's
    ``auth``): the profile's local bridge token from the keyring, never the upstream key, so
    whatever holds ``bridge_port`` while the bridge is stopped gets nothing that opens the
    upstream (docs/bridge.md, 'Global switch')."""
    from judgeaudit.profiles.targets import authcmd  # `key print` must start fast

    return authcmd.bridge_token(profile.name)


def use_note(profile: Profile) -> str:
    """What a global switch must tell the user."""
    return (
        f"profile {profile.name} goes through the bridge: {profile.app} will talk to "
        f"{local_url(profile)}, so keep `judgeaudit bridge {profile.name}` running (docs/bridge.md, "
        "'Global switch', has a systemd user unit); "
        "`judgeaudit exec` starts its own"
    )


def _answer(profile: Profile, timeout_s: float) -> dict[str, Any] | Literal[False] | None:
    return answer_at(local_url(profile), timeout_s)


def answer_at(url: str, timeout_s: float = 1.0) -> dict[str, Any] | Literal[False] | None:
    """What listens at ``url``: a judgeaudit bridge's info, ``None`` (nothing), or ``False``
    (something that is not a judgeaudit bridge)."""
    import http.client
    import json  # here, not at the top: profiles.model imports this module, and
    import urllib.error  # `key print` (run before every Claude Code session) must start fast
    import urllib.request

    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
    try:
        with direct.open(url + "/", timeout=timeout_s) as answer:
            info = json.loads(answer.read().decode("utf-8"))
    except urllib.error.HTTPError:
        return False  # it answered, with an error: not our bridge (whose root says who it is)
    except urllib.error.URLError as error:  # the connection itself
        # refused: nothing listens; a connect that timed out on loopback: something does
        return False if isinstance(error.reason, TimeoutError) else None
    except (TimeoutError, ConnectionError, http.client.HTTPException, ValueError):
        # it accepted the connection, then stayed silent, hung up or spoke another protocol
        # (an SSH banner): something listens there, and it is not a judgeaudit bridge
        return False
    except OSError:
        return None
    if not isinstance(info, dict) or info.get("name") != "judgeaudit bridge":
        return False
    return info


def status(profile: Profile, timeout_s: float = 1.0) -> str:
    """Whether this profile's bridge answers on its port (``profile doctor``)."""
    url = local_url(profile)
    info = _answer(profile, timeout_s)
    if info is None:
        return f"bridge: nothing answers on {url}; start `judgeaudit bridge {profile.name}`"
    if info is False:
        return f"bridge: {url} answers but is not a judgeaudit bridge; pick another bridge_port"
    if info.get("profile") != profile.name:
        return (
            f"bridge: {url} serves profile {info.get('profile')!r}, not {profile.name!r}; "
            f"restart it with `judgeaudit bridge {profile.name}`"
        )
    return f"bridge: running on {url} for {profile.name} -> {info.get('upstream')}"


def old_switch(profile: Profile) -> str | None:
    """The live file points the tool at this bridge but runs no token helper: a switch written
    by an older judgeaudit (or a hand edit), whose tool still sends the real key to the port."""
    from judgeaudit.profiles.paths import live_file  # not at import: see _answer

    path = live_file(profile.app)
    try:
        text = path.read_text(encoding="utf-8") if path is not None else ""
    except (OSError, UnicodeDecodeError):
        return None
    if local_url(profile) not in text or "bridge-token" in text:
        return None
    return (
        f"bridge: {path} still has {profile.app} send this profile's real key to "
        f"{local_url(profile)} (switched by an older judgeaudit); `judgeaudit profile use "
        f"{profile.name}` makes it send the local token instead"
    )


def doctor(profile: Profile) -> list[str]:
    """``profile doctor``'s lines about a bridged active profile."""
    return [status(profile), *filter(None, [old_switch(profile)])]


def foreign_listener(profile: Profile, timeout_s: float = 1.0) -> str | None:
    """Why a global switch to ``profile`` must not happen: something that is not a judgeaudit
    bridge answers on its port, and the tool would hand it the profile's upstream key."""
    if _answer(profile, timeout_s) is not False:
        return None
    return (
        f"profile {profile.name!r}: something listens on {local_url(profile)} and is not a "
        f"judgeaudit bridge (it did not answer as one within {timeout_s:g} s), "
        f"and {profile.app} would send it this profile's local token; nothing was changed: stop what "
        f"listens there or pick a free port ({port_fix(profile.name)}), then start "
        f"`judgeaudit bridge {profile.name}`"
    )

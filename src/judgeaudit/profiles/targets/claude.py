"""Claude Code ``settings.json``: reconcile only the keys judgeaudit owns, in place, keeping the
file's formatting; remove leftover tokens that would shadow the switch; never write invalid JSON
(Claude Code silently ignores an invalid settings file, hooks and permissions included)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from judgeaudit.profiles import bridgeopt
from judgeaudit.profiles.jsonedit import BOM, JsonDoc, JsonEditError, dump_value
from judgeaudit.profiles.ledger import FILE_FACTS, Entry, Reconciler, Split, fingerprint
from judgeaudit.profiles.model import Profile, ProfileError
from judgeaudit.profiles.targets import FilePlan, authcmd, customheaders, heldback
from judgeaudit.profiles.targets.customheaders import credential_headers as credential_headers

ENV_FOR_OPTION = {
    "small_fast_model": "ANTHROPIC_SMALL_FAST_MODEL",
    "default_sonnet_model": "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "default_opus_model": "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "default_haiku_model": "ANTHROPIC_DEFAULT_HAIKU_MODEL",
}
#: The model tiers Claude Code sends beside ``ANTHROPIC_MODEL`` (``--model haiku``, background
#: calls). CC Switch presets write them; left in place after a switch they send the previous
#: provider's model ids to the new gateway, so a switch owns all of them: what the profile does
#: not set is removed (kept for ``off``), like a leftover token. (``ANTHROPIC_MODEL`` keeps its
#: rule: a user's own value comes back when a profile sets no model.)
TIER_VARS = tuple(ENV_FOR_OPTION.values())
TIER_PATHS = tuple(f"env.{v}" for v in TIER_VARS)
TOKEN_VARS = ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY")
TOKEN_PATHS = tuple(f"env.{v}" for v in TOKEN_VARS)  # outrank apiKeyHelper in Claude Code
#: Any of these set to a true value sends Claude Code to a cloud and ignores ANTHROPIC_BASE_URL.
ROUTER_VARS = (
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_USE_FOUNDRY",
    "CLAUDE_CODE_USE_ANTHROPIC_AWS",
    "CLAUDE_CODE_USE_MANTLE",
)
ROUTER_PATHS = tuple(f"env.{v}" for v in ROUTER_VARS)
#: Extra headers Claude Code sends with every request (``Name: value``, one a line). A gateway key
#: put there goes to whatever ANTHROPIC_BASE_URL names, so a switch treats its credential lines
#: as a leftover token and leaves the other lines live (``customheaders``).
HEADERS_VAR = "ANTHROPIC_CUSTOM_HEADERS"
HEADERS_PATH = f"env.{HEADERS_VAR}"
HEADERS_SPLIT = Split(customheaders.leave, customheaders.rejoin, customheaders.said)
SECRET_KEYS = frozenset({*TOKEN_PATHS, HEADERS_PATH, "apiKeyHelper"})
CREDENTIAL_PATHS = (*TOKEN_PATHS, HEADERS_PATH)  # bound to the base URL they were saved with
COMMAND_KEYS = frozenset({"apiKeyHelper"})  # a command, not a key: shown with keys masked


def truthy(value: object) -> bool:
    """Claude Code's own test of a flag variable ("1", "true", "yes", "on")."""
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on")


def parse(path: Path, raw: bytes) -> JsonDoc:
    """The live file as an editable document, or one line saying why it cannot be edited."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ProfileError(f"{path}: not UTF-8 text; nothing was changed") from None
    try:
        doc = JsonDoc(text)
        data = doc.data()
    except JsonEditError as exc:
        raise ProfileError(
            f"{path}:{exc.line}:{exc.col}: invalid JSON ({exc}); fix it or move it aside, "
            "nothing was changed"
        ) from None
    except ValueError as exc:  # json.JSONDecodeError: something our scanner let through
        raise ProfileError(f"{path}: invalid JSON ({exc}); nothing was changed") from None
    if "env" in data and not isinstance(data["env"], dict):
        raise ProfileError(f"{path}: 'env' must be an object; nothing was changed")
    return doc


class SettingsDoc:
    """The :class:`~judgeaudit.profiles.ledger.Editable` view of a settings file."""

    def __init__(self, doc: JsonDoc) -> None:
        self.doc = doc

    @staticmethod
    def _path(dotted: str) -> tuple[str, ...]:
        return ("env", dotted[4:]) if dotted.startswith("env.") else (dotted,)

    def current_raw(self, dotted: str) -> str | None:
        return self.doc.raw(self._path(dotted))

    def put_raw(self, dotted: str, raw: str, index: int | None = None) -> None:
        self.doc.set(self._path(dotted), raw, index)

    def remove(self, dotted: str) -> None:
        self.doc.delete(self._path(dotted))

    def index_of(self, dotted: str) -> int | None:
        return self.doc.index(self._path(dotted))

    def siblings(self, dotted: str) -> list[str]:
        path = self._path(dotted)
        parent = self.doc.node(path[:-1]) if len(path) > 1 else self.doc.root
        if parent is None or parent.kind != "object":
            return []
        prefix = "env." if len(path) > 1 else ""
        return [prefix + member.key for member in parent.members]

    def ensure_container(self, dotted: str) -> bool:
        if self.doc.node((dotted,)) is not None:
            return False
        self.doc.set((dotted,), "{}")
        return True

    def container_empty(self, dotted: str) -> bool:
        node = self.doc.node((dotted,))
        return node is not None and node.kind == "object" and not node.members


def header_secrets(env: object) -> set[str]:
    """The credential values in a settings ``env``'s custom headers (masked wherever shown)."""
    if not isinstance(env, dict):
        return set()
    return {text for _, text in credential_headers(env.get(HEADERS_VAR))}


def header_lines_in(text: str) -> set[str]:
    """The credential lines of a settings file's custom headers as its JSON text holds them
    (escapes and all), so a preview masks them even where the decoded value is not what the
    file shows; a switch that moves only those lines masks only those."""
    try:
        raw = JsonDoc(text).raw(("env", HEADERS_VAR))
    except (JsonEditError, ValueError):
        return set()
    return customheaders.credential_raws(raw) if raw is not None else set()


def helper_command(key_name: str) -> str:
    """The apiKeyHelper command: this very interpreter, so it works from any shell and venv."""
    return shlex.join(authcmd.key_print(key_name))


def env_helper_command(variable: str) -> str:
    """The apiKeyHelper of a ``key_env`` profile: prints the variable Claude Code starts with."""
    return shlex.join(authcmd.print_env(variable))


def key_helper(profile: Profile) -> str:
    """The apiKeyHelper command of a ``key_mode = "helper"`` profile (the default): its keyring
    entry, else its ``key_env`` variable; one line naming both options when it has neither. A
    bridged profile's prints its local bridge token instead (the real key stays with the bridge)."""
    if bridgeopt.uses_bridge(profile):
        return shlex.join(bridgeopt.token_command(profile))
    if profile.key:
        return helper_command(profile.key)
    if profile.key_env:
        return env_helper_command(profile.key_env)
    raise ProfileError(
        f"profile {profile.name!r} has no key: `judgeaudit profile edit {profile.name} --key "
        "NAME` (a keyring entry) or `--key-env VAR` (an environment variable holding it)"
    )


def anthropic_base(profile: Profile) -> str:
    if bridgeopt.uses_bridge(profile):  # the upstream only serves chat completions
        return bridgeopt.local_url(profile)
    return profile.anthropic_gateway()


def model_values(profile: Profile) -> dict[str, str]:
    """The model ids this profile sets (main, tiers), as dotted paths to values."""
    want = {}
    if profile.model:
        want["env.ANTHROPIC_MODEL"] = profile.model
    for option, variable in ENV_FOR_OPTION.items():
        if profile.option(option):
            want[f"env.{variable}"] = str(profile.option(option))
    if bridgeopt.uses_bridge(profile) and profile.model:
        # Claude Code's background calls use its small model; a chat-only gateway rarely serves
        # a Claude model id, so they default to the profile's model.
        for option in ("small_fast_model", "default_haiku_model"):
            want.setdefault(f"env.{ENV_FOR_OPTION[option]}", profile.model)
    return want


#: What a settings layer above the user's file (a project binding, exec's ``--settings``) sets
#: empty where the profile sets nothing: the cloud switches and the model tiers.
OVER_USER_BLANKS = (*TOKEN_VARS, HEADERS_VAR, *ROUTER_VARS, *TIER_VARS)


def tool_key_mode(profile: Profile) -> str:
    """How Claude Code gets its key: ``key_mode``, except that a bridged profile's tool always
    runs the helper (its local token: an inline key or the shell's would go to the port)."""
    return "helper" if bridgeopt.uses_bridge(profile) else str(profile.option("key_mode", "helper"))


def desired(
    profile: Profile, inline_key: str | None, over_user: bool = False, headers: object = None
) -> dict[str, str]:
    """The owned keys this profile sets, as dotted paths to plain values. ``over_user``: a
    layer above the user's file (a project binding), which cannot remove what that file sets,
    so it blanks it instead (empty is unset to Claude Code, as in exec's layer): the tokens, the
    cloud switches and the model tiers this profile does not set. A token in the user's file
    outranks the binding's apiKeyHelper, so the bound gateway got another provider's key; a
    tier sent its model id there. Its custom headers are ``headers`` (the value Claude Code
    would otherwise send) less the credential lines."""
    want = {"env.ANTHROPIC_BASE_URL": anthropic_base(profile), **model_values(profile)}
    mode = tool_key_mode(profile)
    if over_user:
        want[HEADERS_PATH] = customheaders.without_credentials(headers)
        for variable in OVER_USER_BLANKS:
            if mode == "env" and variable in TOKEN_VARS:
                continue  # the key is the shell's token, which a settings env (blank) outranks
            want.setdefault(f"env.{variable}", "")
    if mode == "helper":
        want["apiKeyHelper"] = key_helper(profile)
    elif mode == "inline":
        if not inline_key:
            raise ProfileError(f"profile {profile.name!r}: key_mode inline needs a stored key")
        want["env.ANTHROPIC_AUTH_TOKEN"] = inline_key
    return want


def plan(
    path: Path,
    raw: bytes | None,
    profile: Profile | None,
    ledger: dict[str, Entry],
    load_secret: Callable[[str], str | None],
    *,
    inline_key: str | None = None,
    keep_conflicts: bool = False,
    created: bool = False,
    over_user: bool = False,
    headers_below: object = None,
) -> FilePlan:
    """Plan the file for ``profile`` (``None``: judgeaudit off, the user's own file back);
    ``over_user``: the file is a layer above the user's (:func:`desired`), ``headers_below``
    the custom headers of the layers under it (used when this file has none of its own)."""
    doc = parse(path, raw) if raw is not None else JsonDoc("")
    facts = dict(ledger.get(FILE_FACTS, {}))
    ours = any(k != FILE_FACTS for k in ledger)
    blank = raw is not None and not raw.removeprefix(BOM.encode("utf-8")).strip()
    if raw is not None and profile is not None and blank and not ours:
        facts["text"] = raw.decode("utf-8")  # a blank file (a BOM too): `off` gives back this
    headers = headers_below
    if over_user:
        own_headers = _users_raw(SettingsDoc(doc), HEADERS_PATH, ledger, load_secret)
        headers = json.loads(own_headers) if own_headers is not None else headers_below
    want = desired(profile, inline_key, over_user, headers) if profile else {}
    if keep_conflicts:  # the file's own values stay, blanks included: none written over them
        env_now = doc.data().get("env")
        own = env_now if isinstance(env_now, dict) else {}
        for variable in OVER_USER_BLANKS:
            if variable in own and (want.get(f"env.{variable}") == "" or variable == HEADERS_VAR):
                want.pop(f"env.{variable}", None)
    conflicts = [] if keep_conflicts or profile is None else _conflicts(doc, ledger)
    reconciler = Reconciler(
        SettingsDoc(doc),
        str(path),
        SECRET_KEYS,
        load_secret,
        containers=frozenset({"env"}),
        commands=COMMAND_KEYS,
        splits={HEADERS_PATH: HEADERS_SPLIT},
    )
    base_now = SettingsDoc(doc).current_raw(heldback.BASE_URL)
    held: dict[str, Entry] = {}
    base_after = base_now
    if profile is None:  # a credential goes back only beside the URL it was saved with
        ledger, held, base_after = heldback.hold(ledger, CREDENTIAL_PATHS, base_now)
        reconciler.held = held
    outcome = reconciler.reconcile({k: dump_value(v) for k, v in want.items()}, ledger, conflicts)
    base_live = SettingsDoc(doc).current_raw(heldback.BASE_URL)  # as the switch writes it
    heldback.settle(outcome, held, base_after, CREDENTIAL_PATHS, base_live, profile is not None)
    warnings = []
    if keep_conflicts and profile is not None:
        warnings = _kept_conflicts(path, doc.data().get("env", {}), profile, outcome.ledger)
    secret = bool(want.get("env.ANTHROPIC_AUTH_TOKEN"))  # a binding's blank is no key
    if secret:
        warnings.append(
            f"{path} will hold the API key in plain text (key_mode inline); it is "
            "written with mode 0600. key_mode helper keeps it in the keyring."
        )
    inline_ref = profile.key if secret and profile else None
    if inline_ref:
        outcome.ledger["env.ANTHROPIC_AUTH_TOKEN"]["keyname"] = inline_ref
    if facts:
        outcome.ledger[FILE_FACTS] = facts
    else:
        outcome.ledger.pop(FILE_FACTS, None)
    after_bytes: bytes | None = doc.text.encode("utf-8")
    if profile is None and "text" in facts and not doc.data():
        after_bytes = facts["text"].encode("utf-8")  # it was blank before judgeaudit
    if profile is None and (raw is None or (created and not doc.data())):
        after_bytes = None  # judgeaudit created this file and nothing of the user's is in it
    return FilePlan(
        path,
        raw,
        after_bytes,
        kind="claude",
        secret=secret,
        ledger=outcome.ledger,
        notes=outcome.notes,
        warnings=warnings,
        save_secrets=outcome.save_secrets,
        dropped_secrets=outcome.dropped_secrets,
        inline_key_name=inline_ref,
        held=list(held),
    )


def _kept_conflicts(
    path: Path, env: dict[str, Any], profile: Profile, ledger: dict[str, Entry]
) -> list[str]:
    """What ``--keep-conflicts`` leaves in ``env`` that sends a credential, or the calls, or a
    model id somewhere the profile did not mean: one warning each."""
    host = urlsplit(anthropic_base(profile)).netloc
    warnings = [
        f"{path}: env.{variable} is kept (--keep-conflicts): Claude Code ranks it above "
        f"apiKeyHelper and sends that token to this profile's gateway ({host})"
        for variable in TOKEN_VARS
        if variable in env and f"env.{variable}" not in ledger
    ]
    warnings += [
        f"{path}: env.{HEADERS_VAR} is kept (--keep-conflicts): Claude Code sends its {name} "
        f"header, a credential, to this profile's gateway ({host})"
        for name, _ in credential_headers(env.get(HEADERS_VAR))
    ]
    warnings += [
        f"{path}: env.{variable} is kept (--keep-conflicts); Claude Code then talks to that "
        "cloud and ignores this profile's base URL"
        for variable in ROUTER_VARS
        if truthy(env.get(variable))
    ]
    return warnings + [
        f"{path}: env.{variable} = {env[variable]!r} is kept (--keep-conflicts); Claude Code "
        "sends that model id to this profile's gateway"
        for variable in stale_tiers(env, profile)
    ]


def _users_raw(
    view: SettingsDoc,
    dotted: str,
    ledger: dict[str, Entry],
    load_secret: Callable[[str], str | None],
) -> str | None:
    """The user's own value of ``dotted`` in this file (JSON text): the live one, unless the
    ledger says judgeaudit wrote it (then the one it replaced, None when there was none)."""
    current = view.current_raw(dotted)
    entry = ledger.get(dotted)
    if entry is None or entry.get("removed") or current is None:
        return current
    if entry.get("wrote") != fingerprint(current):
        return current  # edited by hand since: theirs
    if not entry.get("had"):
        return None
    return load_secret(entry["ref"]) if "ref" in entry else entry.get("raw")


def stale_tiers(env: dict[str, Any], profile: Profile) -> list[str]:
    """Tier variables a settings ``env`` sets that this profile does not: each sends a model id
    of whoever wrote it (another provider, a CC Switch preset) to this profile's gateway."""
    wanted = {p[4:] for p in model_values(profile)}
    return [v for v in TIER_VARS if env.get(v) and v not in wanted]  # empty: unset


def _conflicts(doc: JsonDoc, ledger: dict[str, Entry]) -> list[str]:
    """What someone else wrote that would override the switch: leftover tokens, model tiers the
    profile does not set, a true Bedrock/Vertex/... flag and custom headers carrying a
    credential (each still a conflict once removed, so it stays removed). The reconcile skips
    those the profile sets."""
    view = SettingsDoc(doc)
    found = []
    for dotted, test in (
        *((d, truthy) for d in ROUTER_PATHS),
        (HEADERS_PATH, lambda v: bool(credential_headers(v))),
    ):
        raw = view.current_raw(dotted)
        removed = bool(ledger.get(dotted, {}).get("removed"))
        if removed or (raw is not None and test(json.loads(raw))):
            found.append(dotted)
    return [*TOKEN_PATHS, *TIER_PATHS, *found]


def validate(path: Path, written: bytes, plan_: FilePlan) -> None:
    data: dict[str, Any] = parse(path, written).data()
    if written != plan_.after:
        raise ProfileError(f"{path}: read-back differs from what was written")
    if "env" in data and not isinstance(data["env"], dict):
        raise ProfileError(f"{path}: read-back has a broken env object")

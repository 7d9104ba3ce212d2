"""The table of switch targets: one entry per app, each answering the same few questions.

A switch asks which files an app keeps its settings in, how each is planned, read for secrets
and checked after writing, and what would shadow it. Those answers used to be ``if app ==
"claude"`` chains repeated through the switch, the project binding and the shadowing check;
here each app answers them once, and the switch loops over :data:`TARGETS`. A new client is a
new entry (and its own module under ``targets/``), not a new branch in every caller.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

import tomlkit

from judgeaudit.hosts import is_loopback_host
from judgeaudit.profiles import secrets, shadowing
from judgeaudit.profiles.execguard import CLIENTS
from judgeaudit.profiles.ledger import Entry
from judgeaudit.profiles.model import APPS, App, Profile, ProfileError
from judgeaudit.profiles.paths import claude_settings, codex_home
from judgeaudit.profiles.targets import FileKind, FilePlan, authcmd, claude, codex, codexauth
from judgeaudit.profiles.targets.keywarnings import codex_key_warnings, helper_warnings
from judgeaudit.redact import keylike_words, secret_values

SecretLoader = Callable[[str], str | None]


class Target(Protocol):
    """What the switch needs to know about one app."""

    app: App
    kinds: tuple[FileKind, ...]  # the kinds of file it writes (a plan's ``kind``)
    command_keys: frozenset[str]  # settings that hold a command (shown with keys masked)

    def files(self, profile: Profile | None, owned: Iterable[str]) -> list[tuple[Path, FileKind]]:
        """The files a switch to ``profile`` (``None``: off; ``owned``: files in the ledger)
        writes, each with its kind."""
        ...

    def project_file(self, project_dir: Path) -> Path:
        """The file a per-project binding writes, or a refusal saying why there is none."""
        ...

    def plan(
        self,
        path: Path,
        raw: bytes | None,
        kind: FileKind,
        profile: Profile | None,
        ledger: dict[str, Entry],
        load_secret: SecretLoader,
        *,
        keep_conflicts: bool,
        created: bool,
    ) -> FilePlan: ...

    def secrets_in(self, text: str) -> set[str]:
        """Values in a file's text that are secrets (raises ValueError if it does not parse)."""
        ...

    def validate(self, plan: FilePlan, written: bytes) -> None: ...

    def warnings(self, profile: Profile, project_dir: Path | None) -> list[str]:
        """What would keep the switch from taking effect (shown in the preview)."""
        ...

    def reads_key(self, profile: Profile) -> bool:
        """Whether the tool, switched to ``profile`` (globally or in a project), reads its
        keyring entry while it runs, so deleting that entry breaks it (``key delete``)."""
        ...

    def env_mode(self, profile: Profile) -> str | None:
        """The key mode (Claude Code's ``env``, Codex's ``env_key``) in which the tool, switched
        to ``profile``, takes its key from the environment it starts in, never the keyring;
        None in every other mode. The target's own key-mode rule decides (a bridged profile's
        tool always runs the local token's command)."""
        ...

    def keys_read(self, path: Path, raw: bytes) -> set[str]:
        """The keyring entries a file of this app has the tool read while it runs (our ``key
        print KEY``): what ``key delete`` breaks, whatever the profile says since an edit."""
        ...

    def keys_read_if_asked(self, path: Path, raw: bytes) -> dict[str, list[str]]:
        """Keyring entry -> the provider ids of tables that read it but that the tool uses only
        when asked on its command line (Codex's ``-c model_provider=ID``): a start that asks
        for one fails without the key, though none of the file's own choices does."""
        ...

    def token_held(self, path: Path, raw: bytes) -> str | None:
        """The token a file of this app holds itself (never shown): with it the tool goes on
        working without the keyring (drift compares it; doctor says so)."""
        ...


class ClaudeTarget:
    app: App = "claude"
    kinds: tuple[FileKind, ...] = ("claude",)
    command_keys: frozenset[str] = claude.COMMAND_KEYS

    def files(self, profile: Profile | None, owned: Iterable[str]) -> list[tuple[Path, FileKind]]:
        return [(claude_settings(), "claude")]

    def project_file(self, project_dir: Path) -> Path:
        return project_dir / ".claude" / "settings.local.json"

    def plan(
        self,
        path: Path,
        raw: bytes | None,
        kind: FileKind,
        profile: Profile | None,
        ledger: dict[str, Entry],
        load_secret: SecretLoader,
        *,
        keep_conflicts: bool,
        created: bool,
    ) -> FilePlan:
        inline = None
        if profile is not None and claude.tool_key_mode(profile) == "inline":
            stored = load_secret(profile.key) if profile.key else None
            inline = stored or secrets.resolve_key(profile)
        binding = path.name == "settings.local.json"  # a project binding's layer
        below = None
        if binding and profile is not None:  # the headers of the two files it outranks
            below = shadowing.headers_below(path.parent.parent, ("project", "user"), {})
        return claude.plan(
            path,
            raw,
            profile,
            ledger,
            load_secret,
            inline_key=inline,
            keep_conflicts=keep_conflicts,
            created=created,
            over_user=binding,
            headers_below=below,
        )

    def secrets_in(self, text: str) -> set[str]:
        data = json.loads(text)
        found = secret_values(data)
        if isinstance(data, dict):
            for dotted in self.command_keys:  # a key inside a helper command
                found |= keylike_words(str(data.get(dotted) or ""))
            found |= claude.header_secrets(data.get("env"))  # a key in a custom header
            found |= claude.header_lines_in(text)  # ... as the file spells it
        return found

    def validate(self, plan: FilePlan, written: bytes) -> None:
        claude.validate(plan.path, written, plan)

    def warnings(self, profile: Profile, project_dir: Path | None) -> list[str]:
        out = shadowing.claude_warnings(
            profile, project_dir, project_switch=project_dir is not None
        )
        return out + helper_warnings(profile) + plaintext_warnings(profile)

    def reads_key(self, profile: Profile) -> bool:
        # helper: apiKeyHelper runs `key print KEY`; a bridged profile's bridge reads the key.
        # inline: the key is in the file; env: the shell's token is sent (docs/profiles.md).
        return bool(profile.key) and claude.tool_key_mode(profile) == "helper"

    def env_mode(self, profile: Profile) -> str | None:
        return "env" if claude.tool_key_mode(profile) == "env" else None

    def keys_read(self, path: Path, raw: bytes) -> set[str]:
        helper = claude.parse(path, raw).data().get("apiKeyHelper")
        try:
            read = authcmd.keyring_read(shlex.split(helper)) if isinstance(helper, str) else None
        except ValueError:  # not a command line at all: none of ours
            return set()
        return {read} if read else set()

    def keys_read_if_asked(self, path: Path, raw: bytes) -> dict[str, list[str]]:
        return {}  # settings.json has one apiKeyHelper, always run

    def token_held(self, path: Path, raw: bytes) -> str | None:
        env = claude.parse(path, raw).data().get("env")  # key_mode "inline" writes it
        token = env.get("ANTHROPIC_AUTH_TOKEN") if isinstance(env, dict) else None
        return token if isinstance(token, str) and token else None


class CodexTarget:
    app: App = "codex"
    kinds: tuple[FileKind, ...] = ("codex", "codex-profile")
    command_keys: frozenset[str] = frozenset()

    def files(self, profile: Profile | None, owned: Iterable[str]) -> list[tuple[Path, FileKind]]:
        home = codex_home()
        files: list[tuple[Path, FileKind]] = [(home / "config.toml", "codex")]
        if profile is not None:
            files.append((home / f"{profile.name}.config.toml", "codex-profile"))
            files += [(path, "codex-profile") for path in codexauth.to_align(profile)]
        else:  # off: every per-profile file judgeaudit wrote
            files += [
                (Path(p), "codex-profile")
                for p in owned
                if Path(p).parent == home
                and p.endswith(".config.toml")
                and Path(p).name != "config.toml"
            ]
        return files

    def project_file(self, project_dir: Path) -> Path:
        raise ProfileError(
            "--project: Codex ignores model_provider and model_providers in a project's "
            ".codex/config.toml (it says so at start-up), so a project cannot pick a Codex "
            "gateway; use `judgeaudit exec NAME -- codex` in that terminal, or `codex -p NAME` "
            "after a global `judgeaudit profile use NAME`; nothing was changed"
        )

    def plan(
        self,
        path: Path,
        raw: bytes | None,
        kind: FileKind,
        profile: Profile | None,
        ledger: dict[str, Entry],
        load_secret: SecretLoader,
        *,
        keep_conflicts: bool,
        created: bool,
    ) -> FilePlan:
        if profile is not None and path.name not in ("config.toml", f"{profile.name}.config.toml"):
            return codexauth.align(path, raw, codex.provider_id(profile), ledger)
        return codex.plan_file(
            path,
            raw,
            profile,
            ledger,
            load_secret,
            kind=kind,
            created=created,
            auth_command=profile is not None and codexauth.needs_command(profile),
        )

    def secrets_in(self, text: str) -> set[str]:
        try:
            return secret_values(tomlkit.parse(text).unwrap())
        except tomlkit.exceptions.ParseError as exc:
            raise ValueError(str(exc)) from None

    def validate(self, plan: FilePlan, written: bytes) -> None:
        codex.validate(plan.path, written, plan)

    def warnings(self, profile: Profile, project_dir: Path | None) -> list[str]:
        return (
            shadowing.codex_warnings(profile)
            + codex_key_warnings(profile)
            + plaintext_warnings(profile)
        )

    def reads_key(self, profile: Profile) -> bool:
        # command: an auth command prints the keyring entry (a bridged profile's bridge reads
        # it); env_key: Codex reads the variable.
        try:
            return bool(profile.key) and codex.key_mode(profile) == "command"
        except ProfileError:  # command without a keyring entry: it reads none
            return False

    def env_mode(self, profile: Profile) -> str | None:
        try:
            return "env_key" if codex.key_mode(profile) == "env_key" else None
        except ProfileError:  # command without a keyring entry: no variable either
            return None

    def keys_read(self, path: Path, raw: bytes) -> set[str]:
        tables = codexauth.selected_tables(codex.parse(path, raw))  # a table unselected: unread
        return {k for t in tables if (k := codexauth.keyring_read(t))}

    def keys_read_if_asked(self, path: Path, raw: bytes) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for ident, table in codexauth.unselected_tables(codex.parse(path, raw)).items():
            if key := codexauth.keyring_read(table):
                out.setdefault(key, []).append(ident)
        return out

    def token_held(self, path: Path, raw: bytes) -> str | None:
        return None  # a Codex profile's key is read through a command or a variable


class SdkTarget:
    """SDK profiles live in the environment (``env``/``exec``): a switch writes no file."""

    app: App = "sdk"
    kinds: tuple[FileKind, ...] = ()
    command_keys: frozenset[str] = frozenset()

    def files(self, profile: Profile | None, owned: Iterable[str]) -> list[tuple[Path, FileKind]]:
        return []

    def project_file(self, project_dir: Path) -> Path:
        raise ProfileError(
            "--project: sdk profiles live in the environment; use `judgeaudit exec NAME -- ...`"
        )

    def plan(
        self,
        path: Path,
        raw: bytes | None,
        kind: FileKind,
        profile: Profile | None,
        ledger: dict[str, Entry],
        load_secret: SecretLoader,
        *,
        keep_conflicts: bool,
        created: bool,
    ) -> FilePlan:
        raise ProfileError(f"{path}: sdk profiles write no settings file")

    def secrets_in(self, text: str) -> set[str]:
        return set()

    def validate(self, plan: FilePlan, written: bytes) -> None:
        return None

    def warnings(self, profile: Profile, project_dir: Path | None) -> list[str]:
        return []

    def reads_key(self, profile: Profile) -> bool:
        return bool(profile.key)  # `exec`/`env` of the active profile read it

    def env_mode(self, profile: Profile) -> str | None:
        return None  # no tool: `exec`/`env` of the profile give the key themselves

    def keys_read(self, path: Path, raw: bytes) -> set[str]:
        return set()

    def keys_read_if_asked(self, path: Path, raw: bytes) -> dict[str, list[str]]:
        return {}

    def token_held(self, path: Path, raw: bytes) -> str | None:
        return None


#: Every app a profile can be for, in the order of :data:`~judgeaudit.profiles.model.APPS`.
TARGETS: dict[str, Target] = {t.app: t for t in (ClaudeTarget(), CodexTarget(), SdkTarget())}


def for_app(app: str) -> Target:
    """The target of ``app``, or one line naming the apps there are."""
    try:
        return TARGETS[app]
    except KeyError:
        raise ProfileError(f"app {app!r}: use one of {', '.join(APPS)}") from None


def for_kind(kind: str) -> Target:
    """The target that writes files of ``kind`` (a :class:`FilePlan`'s ``kind``)."""
    return next(t for t in TARGETS.values() if kind in t.kinds)


def plaintext_warnings(profile: Profile) -> list[str]:
    """A key sent over plain ``http://`` to another machine travels unencrypted: said in the
    preview (loopback, the embedded server's and a local bridge's case, is fine)."""
    parts = urlsplit(profile.base_url)
    if parts.scheme != "http" or is_loopback_host(parts.hostname or ""):
        return []
    return [
        f"{profile.base_url} is plain http to another machine: the key and every prompt travel "
        "unencrypted; use https:// if the gateway offers it"
    ]


def keyring_refusal(profile: Profile) -> str | None:
    """Why a global or project switch of ``profile`` must not be written: the tool reads its
    keyring entry on every start (Claude Code's apiKeyHelper, Codex's auth command) and the
    keyring cannot answer, so the switch would exit 0 and the tool fail at its next start. A key
    not stored yet stays a preview warning (:func:`_keyring_gaps`): ``key set`` fixes that
    after the switch. The SDK's ``exec``/``env`` read the key when run and refuse then."""
    target = for_app(profile.app)
    if not target.kinds or not target.reads_key(profile):
        return None
    ok, message = secrets.backend_usable()
    if ok:
        return None
    return (
        f"{message}; nothing was changed: {CLIENTS[profile.app]} would run `judgeaudit key "
        f"print {profile.key}` on every start and get no key"
    )

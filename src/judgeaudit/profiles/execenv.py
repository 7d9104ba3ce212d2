"""``judgeaudit exec PROFILE -- CMD``: one process with the profile, the global files untouched.

Claude Code gets the profile as a private settings layer (``claude --settings FILE``, a 0600
temp file removed afterwards): it outranks the user and project files for that process only,
and blanks leftover tokens that would outrank ``apiKeyHelper``, the credential lines of custom
headers (another gateway's key in ``ANTHROPIC_CUSTOM_HEADERS``; its other lines stay) and Bedrock/Vertex/... flags that would send it to a
cloud. Codex gets ``-c`` overrides (provider table, provider id, model), with
the same kind of key source as a table of that id in ``config.toml``, which Codex merges them
into. Any other command gets the profile's environment, unless a file of the user's would send
the key elsewhere or the command is the other app's client (:mod:`~judgeaudit.profiles.execguard`).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from judgeaudit.fsutil import process_alive
from judgeaudit.profiles import execguard, otherproviders, shadowing
from judgeaudit.profiles.livefile import read_live
from judgeaudit.profiles.model import ANTHROPIC_FAMILY, Profile, ProfileError
from judgeaudit.profiles.otherproviders import CREDENTIAL_SUFFIXES, HEADER_SUFFIXES, OPENAI_OTHERS
from judgeaudit.profiles.paths import codex_home
from judgeaudit.profiles.targets import claude, codex, customheaders, sdk
from judgeaudit.profiles.toolid import APPS, Tool, identify


@dataclass
class Launch:
    argv: list[str]
    env: dict[str, str]
    settings: dict[str, object] | None = None  # Claude Code's private settings layer
    notes: list[str] = field(default_factory=list)
    #: what ``--scrub-other-providers`` took out of ``env`` (names: another provider's)
    left_out: tuple[str, ...] = ()

    def scrub(
        self, profile: Profile, given: list[str], key: str, families: tuple[str, ...] | None
    ) -> Launch:
        """Take another provider's keys and base URLs out of ``env`` (``families``: the user's
        profiles' ``env_prefix``, None: keep them, the default); ``given``: the variables the
        profile gives the command; the profile's own (its ``key_env``, its prefix, its key's
        value) always stay."""
        if families is not None:
            self.left_out = otherproviders.left_out(profile, given, key, self.env, families)
            for name in self.left_out:
                del self.env[name]
        return self


AS_CHOICES = ("claude", "codex", "plain")
LAYER_PREFIX = "judgeaudit-claude-"
#: The settings layers exec's ``--settings`` outranks (managed settings outrank it).
BELOW_EXEC = ("project-local", "project", "user")


def tool_for(
    command: list[str], env: dict[str, str], as_: str | None = None, cwd: Path | None = None
) -> Tool:
    """What exec treats ``command`` as: what the user said (``--as``), else what it is."""
    if as_ == "plain":
        return Tool(None, 1, "--as plain")
    named = next((app for app in APPS if app == as_), None)
    if named is not None:
        return Tool(named, 1, f"--as {named}")
    return identify(command, env, cwd)


def _toml_inline(value: object) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_inline(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def profile_environment(
    profile: Profile, key: str, env: Mapping[str, str] | None = None
) -> tuple[dict[str, str], tuple[str, ...]]:
    """What a plain command run with ``profile`` gets (exec) or a shell exports (env): the
    variables to set (:func:`~judgeaudit.profiles.targets.sdk.variables`, and a Claude
    profile's model tiers, which were cleared instead of set) and those to take away from
    ``env`` (the command's or the shell's; this process's by default)."""
    given = sdk.variables(profile, key)
    if profile.app == "claude":
        given.update({path[4:]: value for path, value in claude.model_values(profile).items()})
    return given, cleared(profile, given, key, os.environ if env is None else env)


def shell_environment(
    profile: Profile, key: str, scrub: tuple[str, ...] | None, env: Mapping[str, str] | None = None
) -> tuple[dict[str, str], tuple[str, ...]]:
    """What ``judgeaudit env`` exports and unsets: :func:`profile_environment`, and with
    ``scrub`` (``--scrub-other-providers``: the user's profiles' prefixes) another provider's
    variables the shell holds (:func:`.otherproviders.left_out`) unset too."""
    env = os.environ if env is None else env
    given, gone = profile_environment(profile, key, env)
    if scrub is not None:
        more = otherproviders.left_out(profile, given, key, env, scrub)
        gone = tuple(dict.fromkeys((*gone, *(name for name in more if name not in given))))
    return given, gone


def _families(given: Mapping[str, str]) -> list[str]:
    """The prefixes of the credential variables ``given`` sets (``OPENAI``, a profile's
    ``env_prefix``, ``ANTHROPIC`` for a Claude profile). Another service's prefix (``AWS``,
    ``NODE``), whose own login this would clear, is refused at the field
    (:data:`judgeaudit.credentials.OTHER_SERVICES`)."""
    found = (otherproviders.credential_family(name) for name in given)
    return list(dict.fromkeys(family for family in found if family))


def cleared(
    profile: Profile, given: Mapping[str, str], key: str, env: Mapping[str, str]
) -> tuple[str, ...]:
    """The variables a command run with ``profile`` must not inherit (see
    :mod:`judgeaudit.profiles.targets.sdk`): those of :data:`.otherproviders.OPENAI_OTHERS`,
    each credential variable (:data:`CREDENTIAL_SUFFIXES`) and header variable
    (:data:`HEADER_SUFFIXES`) of a family whose key ``given`` sets and, where the Anthropic
    family is pointed at the gateway (a Claude profile, ``env_prefix = "ANTHROPIC"``: a shell's
    Bedrock switch or tiers sent Claude Code run by the command elsewhere, a new user), Claude
    Code's token, cloud and tier variables, each unless ``given`` (the
    profile's :func:`~judgeaudit.profiles.targets.sdk.variables`) sets it or it holds, in
    ``env``, exactly the profile's own ``key`` (its ``key_env`` or Codex's ``env_key`` read
    there: unset in a shell, the next ``judgeaudit env`` would find none). A ``key_env`` that
    holds another key (the profile's key came from the keyring) is cleared: a review found the
    real ``ANTHROPIC_API_KEY`` kept beside a gateway's token, and the SDK prefers it."""
    names: list[str] = list(OPENAI_OTHERS)
    suffixes = (*CREDENTIAL_SUFFIXES, *HEADER_SUFFIXES)  # a header can carry a key too
    families = _families(given)
    names += [f"{family}_{suffix}" for family in families for suffix in suffixes]
    if profile.app == "claude" or ANTHROPIC_FAMILY in families:
        names += (*claude.TOKEN_VARS, claude.HEADERS_VAR, *claude.ROUTER_VARS, *claude.TIER_VARS)
    keep = {*given, *(name for name in names if env.get(name) == key)}
    return tuple(dict.fromkeys(name for name in names if name not in keep))


def plan_launch(
    profile: Profile,
    key: str,
    command: list[str],
    base_env: dict[str, str],
    tool: Tool | None = None,
    cwd: Path | None = None,
    scrub: tuple[str, ...] | None = None,
) -> Launch:
    """What to run: argv, environment and (Claude) the private settings layer (``cwd``: where
    the command runs, whose project settings Claude Code reads). ``scrub``: leave out other
    providers' keys and base URLs too (:mod:`.otherproviders`; the user's profiles' prefixes)."""
    tool = tool or tool_for(command, base_env)
    head, tail = command[: tool.insert_at], command[tool.insert_at :]
    env = dict(base_env)
    if profile.app == "claude" and tool.app == "claude":
        if "--settings" in tail or any(arg.startswith("--settings=") for arg in tail):
            raise ProfileError(
                "exec: the command already passes --settings; exec adds its own layer (drop "
                "yours, or run claude without exec)"
            )
        for variable in (*claude.TOKEN_VARS, claude.HEADERS_VAR, *claude.ROUTER_VARS):
            env.pop(variable, None)
        layer_env = {"ANTHROPIC_BASE_URL": claude.anthropic_base(profile)}
        # The custom headers Claude Code would send here, less their credential lines (another
        # gateway's key); `X-Org: acme` still goes out.
        below = shadowing.headers_below(cwd or Path.cwd(), BELOW_EXEC, base_env)
        layer_env[claude.HEADERS_VAR] = customheaders.without_credentials(below)
        layer_env.update({path[4:]: value for path, value in claude.model_values(profile).items()})
        # A token in the user's settings would outrank the helper's key, a Bedrock/Vertex/...
        # flag send this process to a cloud, a tier a CC Switch preset left there go to this
        # profile's gateway: the layer outranks that file, and an empty value is unset to
        # Claude Code.
        for variable in claude.OVER_USER_BLANKS:
            layer_env.setdefault(variable, "")
        settings: dict[str, object] = {"env": layer_env}
        if profile.key:
            settings["apiKeyHelper"] = claude.helper_command(profile.key)
        else:  # key_env only: the key goes into the 0600 layer, removed when claude exits
            layer_env["ANTHROPIC_AUTH_TOKEN"] = key
        launch = Launch([*head, "--settings", "<layer>", *tail], env, settings)
        return launch.scrub(profile, [f"{ANTHROPIC_FAMILY}_BASE_URL"], key, scrub)
    if profile.app == "codex" and tool.app == "codex":
        ident = codex.provider_id(profile)
        table, key_variable = _matching_auth(codex.provider_table(profile), ident, profile)
        table["name"] = f"{profile.name} (judgeaudit exec)"
        overrides = [
            "-c",
            f"model_provider={json.dumps(ident)}",
            "-c",
            f"model_providers.{ident}={_toml_inline(table)}",
        ]
        if profile.model:
            overrides += ["-c", f"model={json.dumps(profile.model, ensure_ascii=False)}"]
        if key_variable:
            env[key_variable] = key
        read = [key_variable] if key_variable else []
        return Launch([*head, *overrides, *tail], env).scrub(profile, read, key, scrub)
    given, gone = profile_environment(profile, key, base_env)
    with_key = [name for name, value in given.items() if value == key]
    execguard.check(profile, command, tool, with_key, own_key=key)
    for variable in gone:  # another account's, or another endpoint's
        env.pop(variable, None)
    env.update(given)
    return Launch(list(command), env).scrub(profile, list(given), key, scrub)


def _file_table(ident: str) -> dict[str, Any] | None:
    """The ``[model_providers.<ident>]`` table of the user's ``config.toml``, if any."""
    try:
        raw = read_live(codex_home() / "config.toml")
        data = tomllib.loads(raw.decode("utf-8")) if raw is not None else {}
    except (ProfileError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None  # Codex says what is wrong with the file itself
    table = (data.get("model_providers") or {}).get(ident)
    return table if isinstance(table, dict) else None


def _matching_auth(
    table: dict[str, Any], ident: str, profile: Profile
) -> tuple[dict[str, Any], str | None]:
    """The ``-c`` table for ``ident``, with the same kind of auth as the table of that id in
    ``config.toml`` (Codex merges the two, and refuses ``auth`` combined with ``env_key``), and
    the variable the key must be in, if any."""
    existing = _file_table(ident)
    if existing is None:
        return table, table.get("env_key")
    if not str(existing.get("name", "")).endswith(codex.OURS_SUFFIX):
        raise ProfileError(
            f"exec: {codex_home() / 'config.toml'} has its own [model_providers.{ident}] "
            f"(not written by judgeaudit), which Codex would merge with this profile; give it "
            f"another id (`judgeaudit profile edit {profile.name} --option provider_id=OTHER`)"
        )
    if "auth" in existing and "env_key" in table:  # a command that prints the key we hold
        variable = str(table["env_key"])
        return codex.as_command(table), variable
    if "env_key" in existing and "auth" in table:
        del table["auth"]
        table["env_key"] = codex.env_key_name(profile)
    return table, table.get("env_key")


def _layer_owner(path: Path) -> int | None:
    """The pid of the exec that wrote this layer (``judgeaudit-claude-PID-XXXX.json``)."""
    pid = path.name.removeprefix(LAYER_PREFIX).split("-", 1)[0]
    return int(pid) if pid.isdigit() else None


def sweep_layers(directory: Path | None = None) -> list[Path]:
    """Remove the settings layers of execs that died without cleaning up (``kill -9``, a power
    cut): ours, and their writer's pid no longer runs. Returns what was removed."""
    removed = []
    for path in Path(directory or tempfile.gettempdir()).glob(f"{LAYER_PREFIX}*.json"):
        pid = _layer_owner(path)
        try:
            mine = path.lstat().st_uid == os.getuid()
        except OSError:
            continue
        if pid is None or not mine or pid == os.getpid() or process_alive(pid):
            continue
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path)
    return removed


@contextlib.contextmanager
def _settings_file(settings: dict[str, object]) -> Iterator[str]:
    # mode 0600; the pid in the name lets a later exec remove it if this one is killed -9
    fd, name = tempfile.mkstemp(prefix=f"{LAYER_PREFIX}{os.getpid()}-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(settings, handle, indent=2)
        os.chmod(name, 0o600)
        yield name
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)


def exit_status(returncode: int) -> int:
    """The child's status as a shell reports it: 128 + N for a death by signal N (Popen gives
    -N, which would become 256 - N as our own exit code)."""
    return 128 - returncode if returncode < 0 else returncode


FORWARDED = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name)
)


def run(launch: Launch) -> int:
    """Run the command to its end (signals forwarded) and return its exit status as a shell
    would; the settings layer is always removed, also when a closed terminal (SIGHUP) or a
    kill ends the command: we outlive the child and clean up after it (``exec`` sweeps the
    layers a killed exec left before it resolves anything: :func:`sweep_layers`)."""
    child: subprocess.Popen[bytes] | None = None
    caught: list[int] = []

    def forward(signum: int, _frame: FrameType | None) -> None:
        caught.append(signum)
        if child is not None:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
    try:
        with contextlib.ExitStack() as stack:
            argv = list(launch.argv)
            if launch.settings is not None:
                argv[argv.index("<layer>")] = stack.enter_context(_settings_file(launch.settings))
            if caught:  # told to stop before the command started: do not start it
                return 128 + caught[0]
            try:
                child = subprocess.Popen(argv, env=launch.env)
            except FileNotFoundError:
                raise ProfileError(f"exec: command not found: {argv[0]}") from None
            except PermissionError:
                raise ProfileError(f"exec: not executable: {argv[0]}") from None
            if caught:  # arrived while it was starting
                forward(caught[-1], None)
            while True:
                try:
                    return exit_status(child.wait())
                except KeyboardInterrupt:  # the terminal sent SIGINT to the child too
                    continue
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

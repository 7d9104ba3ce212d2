"""``judgeaudit key ...``, ``judgeaudit env NAME`` and ``judgeaudit exec NAME -- CMD``."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import os
import sys
from typing import TYPE_CHECKING

from judgeaudit.cli import command_help
from judgeaudit.cli.argsafe import TailParser, long_options, not_an_option, quiet
from judgeaudit.cli.common import PROFILE_NAME_HELP, UserError
from judgeaudit.profiles import secrets
from judgeaudit.profiles.names import SHELLS, ProfileError

if TYPE_CHECKING:
    from judgeaudit.cli.common import Sub
    from judgeaudit.profiles.store import ProfileStore


def _store() -> ProfileStore:
    """Imported on use: ``key print`` runs on every Claude Code / Codex start and needs no store."""
    from judgeaudit.profiles.store import ProfileStore

    return ProfileStore.default()


SCRUB = "--scrub-other-providers"
SCRUB_HELP = (
    "also leave out other LLM providers' variables: keys, base URLs, headers, account settings "
    "(GEMINI_API_KEY, OPENAI_BASE_URL, OPENAI_ORG_ID beside a Claude profile, ...; names in "
    "docs/profiles.md); off by default: a command may need them"
)


KEY_NAME_HELP = "the key's name in the keyring (a profile's `key`)"


def register(sub: Sub) -> None:
    key = quiet(sub.add_parser("key", help=command_help("key")))
    ksub = key.add_subparsers(dest="key_command", required=True, metavar="SUBCOMMAND")
    kset = quiet(
        ksub.add_parser("set", help="store a key (hidden prompt, or standard input)"),
        "it takes one NAME: the key itself is read from a hidden prompt or standard input, "
        "never from the command line, where other processes can see it",
        "nothing was stored",
    )
    kset.add_argument("name", help=KEY_NAME_HELP)
    kset.set_defaults(func=cmd_key_set)
    kstatus = ksub.add_parser(
        "status", help="which keys are stored (masked), and which no profile uses"
    )
    kstatus.add_argument("name", nargs="?", help="one key (default: every one)")
    kstatus.set_defaults(func=cmd_key_status)
    kdel = ksub.add_parser("delete", help="remove a key from the keyring")
    kdel.add_argument("name", help=KEY_NAME_HELP)
    kdel.add_argument(
        "--force", action="store_true", help="delete it even though an active profile uses it"
    )
    kdel.set_defaults(func=cmd_key_delete)
    kprint = ksub.add_parser("print", help="print only the key (for apiKeyHelper / Codex auth)")
    kprint.add_argument("name", help=KEY_NAME_HELP)
    kprint.set_defaults(func=cmd_key_print)
    ktoken = ksub.add_parser(
        "bridge-token",
        help="print a bridged profile's local token (what its switched tool gives the bridge "
        "instead of the key)",
    )
    ktoken.add_argument("profile", help="a bridged profile's name")
    ktoken.set_defaults(func=cmd_key_bridge_token)

    env = quiet(sub.add_parser("env", help=command_help("env")))
    env.add_argument("name", help=PROFILE_NAME_HELP)
    env.add_argument(
        "--shell", default="bash", choices=SHELLS, help="the shell's syntax (default bash)"
    )
    env.add_argument(
        "--force",
        action="store_true",
        help="print the key even to a terminal, or while a file of yours would send it to "
        "another gateway (only when no Claude Code / Codex runs with these exports)",
    )
    env.add_argument("--scrub-other-providers", action="store_true", help=SCRUB_HELP)
    env.set_defaults(func=cmd_env)
    # no abbreviations: after NAME a start of an option is refused (it would run as the
    # command), so before NAME too (`exec --scrub NAME` was taken for the scrub)
    run = quiet(sub.add_parser("exec", help=command_help("exec"), allow_abbrev=False))
    run.__class__ = TailParser  # `exec NAME -- -x` told from `exec NAME -x`
    run.add_argument("name", help=PROFILE_NAME_HELP)
    run.add_argument(
        "--as",
        dest="as_",
        choices=("claude", "codex", "plain"),
        help="what CMD is when exec cannot tell (a wrapper of Claude Code: claude; no client: "
        "plain)",
    )
    run.add_argument("--scrub-other-providers", action="store_true", help=SCRUB_HELP)
    run.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD [ARGS...]")
    run.set_defaults(func=cmd_exec, tail_options=long_options(run))


def cmd_key_set(args: argparse.Namespace) -> int:
    if sys.stdin.isatty():
        value = getpass.getpass(f"key for {args.name} (input hidden): ")
    else:
        value = _one_line(sys.stdin.read(), args.name)
    secrets.set_key(args.name, value)
    print(f"stored key {args.name} ({secrets.mask(value.strip())}) in {secrets.storage_label()}")
    if renewed := _bridge_tokens(args.name, renew=True):
        from judgeaudit.profiles.bridgetokens import renewed_note

        print(renewed_note(renewed))
    if (warning := secrets.plaintext_warning()) is not None:
        print(warning, file=sys.stderr)
    return 0


def _one_line(text: str, name: str) -> str:
    """A key piped in is its one line: a second (two keys pasted, a file of several) stored
    the first silently, so which key went in was a guess."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1:
        raise secrets.SecretError(
            f"key set {name}: the standard input holds {len(lines)} lines and a key is one; "
            "pipe the one line (e.g. `head -n 1 FILE |` or `sed -n 2p FILE |`); nothing stored"
        )
    return lines[0] if lines else ""


def _bridge_tokens(key: str, *, renew: bool) -> list[str]:
    from judgeaudit.profiles import bridgetokens

    return bridgetokens.follow_key(_store(), key, renew=renew)


def cmd_key_status(args: argparse.Namespace) -> int:
    print(f"keyring: {secrets.keyring_said()}")  # the words `key set` and `profile doctor` use
    if not secrets.backend_usable()[0]:
        return 1
    profiles, broken = _store().scan()
    for line in broken:
        print(f"warning: {line}", file=sys.stderr)
    names = {args.name} if args.name else {p.key for p in profiles if p.key}
    listed = sorted(n for n in names if n)
    unused: list[str] = []
    if not args.name:  # a stored key no profile names: listed, so it can be found and deleted
        from judgeaudit.profiles.keynames import stored_names

        held, unlisted = stored_names()  # without the values a switch holds back
        unused = [n for n in held if n not in names]
        if unlisted:
            print(
                f"note: {unlisted}: a key no profile uses is shown only by "
                "`judgeaudit key status NAME`",
                file=sys.stderr,
            )
    stored = secrets.get_keys(listed + unused)
    for name in listed + unused:
        users = [p.name for p in profiles if p.key == name]
        value = stored[name]
        state = f"stored {secrets.mask(value)}" if value else "missing"
        if users or not value:
            print(f"  {name:<20} {state:<16} used by: {', '.join(users) or '-'}")
        elif files := _read_by(name):  # key delete refuses it: not "delete it" here
            print(f"  {name:<20} {state:<16} used by no profile; still read by {files}")
        else:
            print(f"  {name:<20} {state:<16} used by no profile (`judgeaudit key delete {name}`)")
    return 0


def _read_by(name: str) -> str:
    """The files judgeaudit wrote that still run ``key print NAME`` (an edited, removed or broken
    profile's), as ``key delete`` finds them."""
    from judgeaudit.profiles import active

    _, live = active.key_users(_store(), name)
    asked = "{} ([model_providers.{}], only with `-c model_provider={}`)"
    said = {asked.format(u.path, u.table, u.table) if u.table else u.path for u in live}
    return ", ".join(sorted(said))


def cmd_key_delete(args: argparse.Namespace) -> int:
    from judgeaudit.profiles import active

    users, live = active.key_users(_store(), args.name)
    breaks = [active.key_in_use(args.name, use) for use in live if not use.table]
    # a table Codex reads only with -c model_provider=ID: said, refused only beside a break
    asked = [active.key_in_use(args.name, use) for use in live if use.table]
    if breaks and not args.force:
        # A project binding's line, and a file's found by reading it, name their own fix.
        apps = sorted({use.app for use in live if not (use.project or use.by_file)})
        offs = ", ".join(f"`judgeaudit profile off {app}`" for app in apps)
        first = f"switch another profile in (or {offs}) first, or " if apps else ""
        raise UserError(
            f"key delete {args.name}: {'; '.join(breaks + asked)}; {first}give --force; "
            "nothing was deleted"
        )
    # The entry's own deletion is the last refusal check (nothing stored: nothing changed), so
    # the bridge tokens of its profiles go only after it, never on a refusal.
    if not secrets.delete_key(args.name):  # said as every other refusal is: one stderr line
        raise UserError(
            f"key delete {args.name}: no stored key {args.name}; nothing was deleted "
            "(`judgeaudit key status` lists the stored keys)",
            code=1,
        )
    for line in breaks + asked:
        print(f"warning: {line}", file=sys.stderr)
    _bridge_tokens(args.name, renew=False)
    if users and not breaks:
        print(f"note: profiles using it: {', '.join(users)}", file=sys.stderr)
    print(f"deleted key {args.name}")
    return 0


def cmd_key_print(args: argparse.Namespace) -> int:
    value = secrets.get_key(args.name)
    if not value:
        ok, message = secrets.backend_usable()
        raise UserError(
            message
            if not ok
            else f"no stored key {args.name}; run `judgeaudit key set {args.name}`",
            code=1,
        )
    sys.stdout.write(value + "\n")
    return 0


def cmd_key_bridge_token(args: argparse.Namespace) -> int:
    """Claude Code's apiKeyHelper / Codex's auth command of a globally switched bridged profile:
    no profile store is read (it runs before every session), the keyring entry is the name's."""
    token = secrets.bridge_token(args.profile, create=False)
    if not token:  # made by `profile use` and by the bridge; never here for a removed profile
        raise UserError(
            f"no local bridge token for profile {args.profile}; `judgeaudit profile use "
            f"{args.profile}` (or starting `judgeaudit bridge {args.profile}`) makes one",
            code=1,
        )
    sys.stdout.write(f"{token}\n")
    return 0


def cmd_env(args: argparse.Namespace) -> int:
    from judgeaudit.profiles import execguard  # not on `key print`'s path
    from judgeaudit.profiles.execenv import shell_environment
    from judgeaudit.profiles.targets import sdk

    profile = _store().get(args.name)  # an unknown name says so first
    if sys.stdout.isatty() and not args.force:  # a key on screen: scrollback, a recording
        load = f"judgeaudit env {args.name} --shell {args.shell}"
        raise UserError(
            f"env: this prints {args.name}'s key in clear and standard output is a terminal; "
            f'nothing was printed: load it with `eval "$({load})"` (fish, PowerShell: pipe it '
            "to `source`, `Invoke-Expression`), or give --force to show it here"
        )
    key = secrets.resolve_key(profile)
    scrub = _scrub_families(args.scrub_other_providers, "env", "nothing was printed")
    given, gone = shell_environment(profile, key, scrub)
    if not args.force:
        try:
            with_key = [name for name, value in given.items() if value == key]
            execguard.check_env(profile, with_key, own_key=key)
        except ProfileError as exc:
            raise UserError(str(exc)) from None
    print(sdk.exports(given, args.shell, unset=gone))
    if profile.app == "codex":  # Codex 0.171 sent a shell's OPENAI_BASE_URL nowhere: api.openai.com
        print(
            f"note: Codex does not read these variables (it takes its provider from config.toml); "
            f"run it with `judgeaudit exec {args.name} -- codex ...` or switch it in with "
            f"`judgeaudit profile use {args.name}`",
            file=sys.stderr,
        )
    return 0


def _scrub_families(on: bool, verb: str, nothing: str) -> tuple[str, ...] | None:
    """With ``--scrub-other-providers``: the ``env_prefix`` families of the user's profiles
    (another profile's, unless it is this one's too); None: it was not given. A profile file
    that does not load is refused (``nothing``: what was not done): its prefix is unknown, so
    its variables would pass unscrubbed, unsaid."""
    if not on:
        return None
    from judgeaudit.profiles.otherproviders import user_prefixes

    profiles, broken = _store().scan()
    if broken:
        raise UserError(
            f"{verb} {SCRUB}: a profile file does not load, so the variables its env_prefix "
            f"names cannot be left out: {'; '.join(broken)}; {nothing}"
        )
    return user_prefixes(profiles)


def _exec_as(args: argparse.Namespace) -> tuple[str | None, list[str]]:
    """``--as KIND`` and ``--scrub-other-providers`` before or after the profile name
    (argparse gives everything after the name to the command), and the command after ``--``."""
    rest, as_ = list(args.command), args.as_
    if getattr(args, "after_dashes", False):  # `exec NAME -- CMD`: all of it is the command
        return as_, rest
    while rest[:1] in (["--as"], [SCRUB]) or (rest and rest[0].startswith("--as=")):
        if rest[0] == SCRUB:
            args.scrub_other_providers, rest = True, rest[1:]
            continue
        value = rest[1] if rest[0] == "--as" and len(rest) > 1 else rest[0][5:]
        rest = rest[2:] if rest[0] == "--as" else rest[1:]
        if value not in ("claude", "codex", "plain"):
            raise UserError(f"exec: --as {value!r}: use claude, codex or plain", code=2)
        as_ = value
    if rest and rest[0] != "--" and rest[0].startswith("-"):  # a typo ran as the command
        raise UserError(not_an_option(rest[0], args.tail_options), code=2)
    return as_, rest[1:] if rest[:1] == ["--"] else rest


def cmd_exec(args: argparse.Namespace) -> int:
    as_, command = _exec_as(args)
    if not command:
        raise UserError("exec: give a command after --, e.g. judgeaudit exec NAME -- python app.py")
    # The launcher pulls in the Claude/Codex targets: not on the `key print` path.
    from judgeaudit.profiles import bridgeopt, execenv

    # Layers a killed exec left (one may hold a key) go first, even when this exec then fails.
    execenv.sweep_layers()
    profile = _store().get(args.name)
    scrub = _scrub_families(args.scrub_other_providers, "exec", "nothing was run")
    key = secrets.resolve_key(profile)
    base_env = dict(os.environ)
    tool = execenv.tool_for(command, base_env, as_)
    with contextlib.ExitStack() as stack:
        try:  # a profile exec cannot run (no key for its mode, a clash): bad input, exit 2
            if bridgeopt.uses_bridge(profile) and tool.app == profile.app:
                from judgeaudit.bridge.execlink import bridged  # aiohttp only when bridging

                profile, key = stack.enter_context(bridged(profile, key, tool.app))
            launch = execenv.plan_launch(profile, key, command, base_env, tool, scrub=scrub)
        except ProfileError as exc:
            raise UserError(str(exc)) from None
        if scrub is not None:  # names only, never a value; not only keys (headers, org ids)
            left = ", ".join(launch.left_out) or "none in this environment"
            print(f"exec: left out other LLM providers' variables: {left}", file=sys.stderr)
        try:  # the command itself: as a shell reports it
            return execenv.run(launch)
        except ProfileError as exc:
            code = 127 if "not found" in str(exc) else 126
            raise UserError(str(exc), code=code) from None

"""The ``profile`` command's parsers: every argument with its words (``--help``); the handlers
are :mod:`judgeaudit.cli.profile_cmds`'s."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from judgeaudit.cli import command_help
from judgeaudit.cli import profile_cmds as cmds
from judgeaudit.cli.argsafe import quiet
from judgeaudit.cli.common import PROFILE_NAME_HELP
from judgeaudit.profiles.model import APPS

if TYPE_CHECKING:
    from judgeaudit.cli.common import Sub

PROJECT_HELP = "only in this project (DIR, default the current directory): its own settings file"
APP_HELP = "claude (Claude Code's settings.json), codex (Codex's config.toml) or sdk (variables)"
DRY_RUN_HELP = "show the diff and what it replaces; write nothing (exit 2 where it would refuse)"


def register(sub: Sub) -> None:
    profile = quiet(sub.add_parser("profile", help=command_help("profile")))
    psub = profile.add_subparsers(dest="profile_command", required=True, metavar="SUBCOMMAND")
    psub.add_parser("list", help="profiles by app, active marked").set_defaults(func=cmds.cmd_list)
    off = psub.add_parser("off", help="undo judgeaudit in an app's files: your own settings back")
    off.add_argument("app", choices=APPS, help=APP_HELP)
    off.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)
    off.add_argument("--project", nargs="?", const=".", metavar="DIR", help=PROJECT_HELP)
    off.set_defaults(func=cmds.cmd_off)
    doctor = psub.add_parser(
        "doctor", help="what each tool will actually use, and what overrides it"
    )
    doctor.add_argument("app", nargs="?", choices=APPS, help="one app (default: all three)")
    doctor.set_defaults(func=cmds.cmd_doctor)
    show = psub.add_parser("show", help="one profile as TOML, with key status")
    show.add_argument("name", help=PROFILE_NAME_HELP)
    show.set_defaults(func=cmds.cmd_show)
    for verb in ("add", "edit"):
        parser = psub.add_parser(verb, help=f"{verb} a user profile (flags mirror the TOML fields)")
        parser.add_argument("name", help=PROFILE_NAME_HELP)
        parser.add_argument("--app", choices=APPS, required=verb == "add", help=APP_HELP)
        parser.add_argument(
            "--base-url",
            dest="base_url",
            required=verb == "add",
            help="the API base, no key in it (OpenAI-compatible: ending in /v1; Claude Code: "
            "without /v1, but with it for --option bridge=chat)",
        )
        clear = "; '' removes it" if verb == "edit" else ""
        parser.add_argument(
            "--model", help=f"the model the tool asks for (default: the tool's own){clear}"
        )
        parser.add_argument(
            "--key",
            help="keyring entry name (several profiles may share one)"
            + (f"{clear}, the key stays in the keyring" if clear else ""),
        )
        parser.add_argument(
            "--key-env",
            dest="key_env",
            help="environment variable holding the key, upper case (alone: Codex and Claude "
            f"Code read it){clear}",
        )
        parser.add_argument(
            "--price-in", dest="price_in", type=float, help="USD per 1M input tokens"
        )
        parser.add_argument(
            "--price-out", dest="price_out", type=float, help="USD per 1M output tokens"
        )
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="app option, e.g. key_mode=inline (repeatable)",
        )
        parser.set_defaults(func=cmds.cmd_add if verb == "add" else cmds.cmd_edit)
    remove = psub.add_parser("remove", help="delete a user profile (its key stays)")
    remove.add_argument("name", help=PROFILE_NAME_HELP)
    remove.set_defaults(func=cmds.cmd_remove)
    for verb, helptext in (
        ("use", "switch a profile in (a safe transaction)"),
        ("diff", "show what `use` would change"),
    ):
        parser = psub.add_parser(verb, help=helptext)
        parser.add_argument("name", help=PROFILE_NAME_HELP)
        if verb == "use":
            parser.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)
        parser.add_argument("--project", nargs="?", const=".", metavar="DIR", help=PROJECT_HELP)
        parser.add_argument(
            "--keep-conflicts",
            action="store_true",
            help="leave leftover ANTHROPIC_AUTH_TOKEN/ANTHROPIC_API_KEY, credential "
            "ANTHROPIC_CUSTOM_HEADERS and Bedrock/Vertex flags in settings.json",
        )
        parser.set_defaults(func=cmds.cmd_use, diff_only=verb == "diff")
    psub.add_parser("backups", help="list backups of live files").set_defaults(
        func=cmds.cmd_backups
    )
    restore = psub.add_parser("restore", help="put a backup back")
    restore.add_argument("id", help="a backup id, as `judgeaudit profile backups` lists them")
    restore.set_defaults(func=cmds.cmd_restore)
    test = psub.add_parser("test", help="send one small request through a profile")
    test.add_argument("name", nargs="?", help="the profile to test (or --all)")
    test.add_argument(
        "--all", action="store_true", help="time every profile's endpoint (TTFT p50/p95)"
    )
    test.add_argument("--calls", type=int, default=3, help="calls per profile with --all (3)")
    test.add_argument(
        "--timeout", type=float, default=15.0, help="seconds to wait for each answer (15)"
    )
    test.set_defaults(func=cmds.cmd_test)
    cc = psub.add_parser("import-ccswitch", help="import CC Switch providers (keys to the keyring)")
    cc.add_argument(
        "--db", type=Path, help="CC Switch's database (default: ~/.cc-switch/cc-switch.db)"
    )
    cc.add_argument(
        "--activate", action="store_true", help="switch to the providers CC Switch has current"
    )
    cc.set_defaults(func=cmds.cmd_import_ccswitch)
    imp = psub.add_parser(
        "import", help='import {"profiles": [{"name", "app", "base_url", "api_key_env"}]}'
    )
    imp.add_argument("file", type=Path, help="the JSON file of profiles")
    imp.set_defaults(func=cmds.cmd_import)
    from judgeaudit.cli import profile_more  # issue 19's additions, kept in their own module

    profile_more.register(psub)

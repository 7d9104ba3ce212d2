"""``judgeaudit profile ...``."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeaudit.cli.common import UserError
from judgeaudit.profiles import active as active_here
from judgeaudit.profiles import backups, bridgeports, doctor, drift, importtx, restore, secrets
from judgeaudit.profiles.importers import ImportReport, import_json_list
from judgeaudit.profiles.keysource import check_key
from judgeaudit.profiles.livefile import read_only_line
from judgeaudit.profiles.model import (
    APP_OPTIONS,
    APPS,
    STORED_FIELDS,
    Profile,
    ProfileError,
    profile_from_dict,
)
from judgeaudit.profiles.paths import CONFIG_ENV
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import SwitchResult, turn_off, use_profile
from judgeaudit.terminal import cells, pad, printable

if TYPE_CHECKING:
    from judgeaudit.cli.common import Sub

FIELD_FLAGS = ("app", "base_url", "model", "key", "key_env", "price_in", "price_out")
#: The fields ``profile edit NAME --FIELD ''`` removes (the key's entry stays in the keyring).
CLEARABLE = ("model", "key", "key_env")


def register(sub: Sub) -> None:
    """The ``profile`` parsers, declared in :mod:`judgeaudit.cli.profile_args`."""
    from judgeaudit.cli import profile_args

    profile_args.register(sub)


def _checked(data: dict[str, Any], where: str) -> Profile:
    """The profile ``data`` describes, or its one-line refusal saying nothing was saved (said
    here: the same rule reading a profile file for `profile list` saves nothing either)."""
    try:
        return profile_from_dict(data, where)
    except ProfileError as exc:
        raise ProfileError(f"{exc}; nothing was saved") from None


def _store() -> ProfileStore:
    return ProfileStore.default()


def cmd_list(args: argparse.Namespace) -> int:
    store = _store()
    if removed := importtx.recover(store):
        print(f"rolled back an interrupted import ({removed} profiles removed)", file=sys.stderr)
    profiles, broken = store.scan()
    active = active_here.here(store.state())
    for line in broken:
        print(f"warning: {line}", file=sys.stderr)
    stored = secrets.get_keys(sorted({p.key for p in profiles if p.key}))
    shown = {
        p.name: tuple(printable(v) for v in (p.name, p.shown_url, p.model or "-")) for p in profiles
    }
    # each column as wide as its longest value (at least its usual width), in screen cells, over
    # every app's list: a 30-character model id pushed the key column out of line
    widths = [
        max([least, *(cells(row[i]) for row in shown.values())])
        for i, least in enumerate((22, 36, 22))
    ]
    for app in APPS:
        mine = [p for p in profiles if p.app == app]
        if not mine:
            continue
        print(f"{app}:")
        for p in mine:
            mark = "*" if active.get(app) == p.name else " "
            drifted = mark == "*" and drift.drift(store, app, p.name) is not None
            key = (
                secrets.mask(stored[p.key])
                if p.key
                else ("env " + p.key_env if p.key_env else "no key")
            )
            about = f"  {printable(p.description)}" if p.description else ""  # imported text
            about += f"  {drift.DRIFT_MARK}" if drifted else ""
            # padded by the cells each takes on screen: a CJK model id shifted the columns
            columns = " ".join(pad(v, w) for v, w in zip(shown[p.name], widths, strict=True))
            line = f" {mark} {columns} key {p.key or '-'} ({key}) [{p.source}]{about}"
            print(printable(line))
    print(f"your profiles: {printable(str(store.user_dir))} (${CONFIG_ENV} sets that folder)")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    profile = _store().get(args.name)
    print(printable(profile.to_toml().rstrip()))
    if profile.key:
        print(f"# key {profile.key}: {secrets.mask(secrets.get_key(profile.key))}")
    return 0


def _options(pairs: list[str], app: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise UserError(
                f"--option {pair!r}: use KEY=VALUE (options for {app}: {', '.join(APP_OPTIONS[app])})"
            )
        out[key.strip()] = value.strip()
    return out


def cmd_add(args: argparse.Namespace) -> int:
    store = _store()
    if store.exists(args.name):
        raise UserError(f"profile {args.name!r} exists; use `judgeaudit profile edit {args.name}`")
    data = {f: getattr(args, f) for f in FIELD_FLAGS if getattr(args, f) is not None}
    data["name"] = args.name
    data["options"] = _options(args.option, args.app)
    profile = _checked(data, "profile add")
    check_key(profile, "profile add")
    path = bridgeports.save(store, profile)
    print(f"added {args.name} -> {path}")
    if data.get("key") and not secrets.get_key(data["key"]):
        print(f"next: judgeaudit key set {data['key']}")
    return 0


def cmd_edit(args: argparse.Namespace) -> int:
    store = _store()
    data: dict[str, Any]
    try:
        current = store.get(args.name)
        data = {f: getattr(current, f) for f in STORED_FIELDS}
        data["options"] = dict(current.options)
    except ProfileError as refused:  # a file a newer rule refuses: mended by the edit, or said
        data = store.stored_table(args.name, refused)
    had_key, keyed = data.get("key"), bool(data.get("key") or data.get("key_env"))
    given = {f: getattr(args, f) for f in FIELD_FLAGS if getattr(args, f) is not None}
    data.update({f: None if v == "" and f in CLEARABLE else v for f, v in given.items()})
    data = {k: v for k, v in data.items() if v is not None}  # a cleared field: gone
    app = data.get("app")
    if not isinstance(app, str) or app not in APP_OPTIONS:  # a mended file's bad app: said
        _checked(data, "profile edit")
    data["options"].update(_options(args.option, data["app"]))
    profile = _checked(data, "profile edit")
    check_key(profile, "profile edit", had_key=keyed)  # `--key ''` of key_mode command too
    path = bridgeports.save(store, profile)
    print(f"saved {args.name} -> {path}")
    if isinstance(had_key, str) and had_key != profile.key:
        _kept_key(store, args.name, had_key)
    if note := drift.edit_note(store, args.name):
        print(printable(f"note: {note}"))
    return 0


def _kept_key(store: ProfileStore, name: str, key: str) -> None:
    """What became of the keyring entry an edit took from a profile: kept, never deleted (it
    may be shared), and how to delete it when no profile names it any more."""
    if not secrets.get_key(key):
        return
    users = active_here.key_users(store, key)[0]
    files = active_here.file_uses(store, name)  # here, another config dir, a project binding
    if users:
        where = f" (used by {', '.join(users)})"
    elif files:  # a file written by `use` still reads it until the edit is applied
        place = files[0].project or files[0].path
        use = f"judgeaudit profile use {name}" + (" --project" if files[0].project else "")
        where = (
            f"; {name} is switched on in {place}, which still reads it until `{use}` applies "
            "the edit: delete it after that"
        )
    else:
        where = f", used by no profile: `judgeaudit key delete {key}` deletes it"
    print(f"note: {name} no longer reads key {key}; the key stays in the keyring" + where)


def cmd_remove(args: argparse.Namespace) -> int:
    store = _store()
    store.remove(args.name)
    print(f"removed {args.name}")
    for app, name in active_here.here(store.state()).items():
        if name == args.name and app != "sdk":  # its values are still in the app's files
            print(
                f"warning: {args.name} was switched on for {app}, and {app}'s files still point "
                f"at its provider; `judgeaudit profile off {app}` gives you your own values back",
                file=sys.stderr,
            )
    return 0


def _print_switch(result: SwitchResult) -> int:
    """The warnings, the diff and the backups; a dry run the switch itself would refuse (a file
    its owner made read-only, no usable keyring for a tool that reads it on every start) shows
    the diff, says why, and exits as that switch would: a script's pre-check read 0 and the
    switch then failed (a new user)."""
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    sys.stdout.write(result.diff or f"{result.app}: no file to change\n")
    if result.applied:
        for backup_id in result.backups:
            print(f"backup: {backup_id}")
    refusals = [line for p in result.read_only if (line := read_only_line(p, dry_run=True))]
    if result.refusal and not any(result.refusal in w for w in result.warnings):
        refusals.append(result.refusal)  # a bridged profile's: no warning says it
    for line in refusals:
        print(f"judgeaudit: {line}", file=sys.stderr)
    return ProfileError.exit_code if refusals or result.refusal else 0


def cmd_use(args: argparse.Namespace) -> int:
    dry = args.diff_only or getattr(args, "dry_run", False)
    where = _project(args)
    result = use_profile(
        _store(), args.name, dry_run=dry, keep_conflicts=args.keep_conflicts, project_dir=where
    )
    code = _print_switch(result)
    if result.applied:
        # a folder's name may hold a bidi or control character: escaped, as doctor does
        print(
            printable(
                f"active {result.app} profile: {result.profile}" + (f" in {where}" if where else "")
            )
        )
        if token := result.token_line():
            print(token)
    return code


def _project(args: argparse.Namespace) -> Path | None:
    from judgeaudit.profiles import project

    return None if args.project is None else project.directory(Path(args.project))


def cmd_off(args: argparse.Namespace) -> int:
    from judgeaudit.cli import profile_more

    where = _project(args)
    store = _store()
    if args.app == "sdk" and where is None:  # no file: only the reminder goes
        return profile_more.off_sdk(store, args.dry_run)
    marked = profile_more.marked_here(store, args.app, where)
    result = turn_off(store, args.app, dry_run=args.dry_run, project_dir=where)
    if result.nothing_to_undo(marked):
        return profile_more.nothing_to_undo(args.app, [p.path for p in result.plans], where)
    code = _print_switch(result)
    if result.applied:
        print(printable(result.off_line(where)))
    return code


def cmd_doctor(args: argparse.Namespace) -> int:
    store = _store()
    active = active_here.here(store.state())
    removed = {app for app, name in active.items() if not store.exists(name)}
    for line in doctor.report(args.app, active, removed=removed):
        print(printable(line))  # the values of the user's files
    for app in [args.app] if args.app else APPS:
        if app in active and store.exists(active[app]):
            for line in bridgeports.doctor(store, store.get(active[app])):
                print(printable(f"{app}: {line}"))
    return 0


def cmd_backups(args: argparse.Namespace) -> int:
    found, broken = backups.scan(_store())
    for line in broken:
        print(f"warning: {line}", file=sys.stderr)
    if not found:
        print("no backups yet")
    for b in found:
        what = f"{b.original} (did not exist)" if b.absent else b.original
        print(printable(f"{b.id:<34} {b.taken_at}  {what}  (before {backups.occasion(b)})"))
    switches = {b.switch for b in found}
    if len(switches) < len(found):
        print("restoring any backup restores every file of its switch (same time and app)")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    restored = restore.restore_switch(_store(), args.id)
    for b in restored:
        if b.unchanged:
            print(printable(restore.unchanged_line(b)))
        elif b.absent:
            print(printable(f"removed {b.original} (that switch created it) [{b.id}]"))
        else:
            print(printable(f"restored {b.original} from {b.id}"))
        if b.set_aside:
            print(printable(f"  the unreadable file it replaced is kept as {b.set_aside}"))
    return 0


def cmd_test(args: argparse.Namespace) -> int:
    if args.all or args.name is None:
        from judgeaudit.cli import profile_more

        return profile_more.cmd_test_all(args)
    profile = _store().get(args.name)
    key = secrets.resolve_key(profile)
    if not math.isfinite(args.timeout) or args.timeout <= 0:
        raise UserError(f"--timeout {args.timeout}: give a number of seconds above 0")
    from judgeaudit.profiles.probe import probe  # aiohttp (0.3 s): only `profile test` calls out

    result = probe(profile, key, timeout_s=args.timeout)
    for line in result.lines:
        print(line)
    return 0 if result.ok else 1


def _report(report: ImportReport, activate: bool = False) -> int:
    for name in report.imported:
        about = report.labels.get(name)
        print(
            f"imported {name}"
            + (f" ({printable(about)})" if about else "")  # the file's own text
            + (" (key stored in keyring)" if name in report.keys_stored else "")
        )
    for line in report.flagged:
        print(f"note: {line}")
    for line in report.skipped:
        print(printable(f"skipped {line}"))
    for line in report.plaintext:
        print(f"plaintext key copy: {line}")
    for app, name in sorted(report.current.items()):
        print(f"current in CC Switch for {app}: {name}")
    for app, label in sorted(report.current_skipped.items()):
        print(
            f"note: CC Switch's current {app} provider ({label}) was skipped (see above)"
            + (f"; nothing activated for {app}" if activate else "")
        )
    print(f"{len(report.imported)} imported, {len(report.skipped)} skipped")
    return 0


def cmd_import_ccswitch(args: argparse.Namespace) -> int:
    store = _store()
    from judgeaudit.profiles.ccswitch import import_ccswitch  # sqlite3 only for this command

    report = import_ccswitch(store, args.db)
    _report(report, args.activate)
    if not args.activate:
        return 0
    for _app, name in sorted(report.current.items()):
        result = use_profile(store, name)
        _print_switch(result)
        print(f"active {result.app} profile: {result.profile}")
    return 1 if report.current_skipped else 0  # asked to activate, and could not for some app


def cmd_import(args: argparse.Namespace) -> int:
    report = import_json_list(_store(), args.file)
    _report(report)
    if report.skipped and not report.imported:  # every entry refused: the file needs fixing
        raise UserError(
            f"profile import: nothing imported, every entry of {args.file} was skipped (above); "
            "fix those entries and run it again"
        )
    return 0

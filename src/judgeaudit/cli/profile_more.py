"""``judgeaudit profile codex-history`` and ``profile test --all``: the parts of ``profile`` that
issue 19 added, kept apart from :mod:`.profile_cmds` (registered by it)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from judgeaudit.cli.common import UserError
from judgeaudit.credentials import check_name
from judgeaudit.profiles import active as active_here
from judgeaudit.profiles.livefile import switch_lock
from judgeaudit.profiles.model import BUILTIN_CODEX_PROVIDERS, PROVIDER_ID_RE, ProfileError
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.targets import codex


def register(psub: Any) -> None:
    history = psub.add_parser(
        "codex-history",
        help="one Codex provider id for every gateway (codex resume finds every session), "
        "or one per gateway (the default)",
    )
    history.add_argument(
        "mode", nargs="?", choices=("shared", "per-gateway"), help="set it (default: say which)"
    )
    history.add_argument(
        "--id",
        default=codex.DEFAULT_SHARED_ID,
        help=f"the shared provider id ({codex.DEFAULT_SHARED_ID})",
    )
    history.set_defaults(func=cmd_codex_history)


def cmd_codex_history(args: argparse.Namespace) -> int:
    store = ProfileStore.default()
    if args.mode is None:
        ident = codex.shared_provider_id()
        print(
            f"codex history: shared, every profile uses provider id {ident!r}"
            if ident
            else "codex history: per gateway (one provider id per gateway host)"
        )
        return 0
    if args.mode == "shared":  # a key pasted here would be written to config.toml and echoed
        check_name(args.id, "--id", ProfileError)
    bad_id = not PROVIDER_ID_RE.match(args.id) or args.id in BUILTIN_CODEX_PROVIDERS
    if args.mode == "shared" and bad_id:
        raise UserError(
            f"--id {args.id!r}: use letters, digits, '-' or '_', not a built-in Codex "
            f"provider ({', '.join(BUILTIN_CODEX_PROVIDERS)})"
        )
    with switch_lock(store.root):
        state = store.state()
        if args.mode == "shared":
            state[codex.SHARED_ID_STATE] = args.id
        else:
            state.pop(codex.SHARED_ID_STATE, None)
        store.save_state(state)
    active = active_here.here(store.state()).get("codex")
    what = (
        f"every Codex profile now uses provider id {args.id!r}: `codex resume --last` finds "
        "sessions of every gateway (a resumed session's history goes to the gateway in use)"
        if args.mode == "shared"
        else "each gateway gets its own Codex provider id again"
    )
    print(what)
    if active:
        print(f"takes effect at the next switch: `judgeaudit profile use {active}`")
    return 0


def cmd_test_all(args: argparse.Namespace) -> int:
    """``profile test --all``: TTFT p50/p95 of every profile, saved for the Profiles screen."""
    from judgeaudit.profiles import latency

    if not args.all:
        raise UserError("profile test: give a profile NAME, or --all to time every profile")
    if args.name is not None:
        raise UserError("profile test: give a profile NAME or --all, not both")
    if not 1 <= args.calls <= 50:
        raise UserError(f"--calls {args.calls}: give 1 to 50 calls per profile")
    if not math.isfinite(args.timeout) or args.timeout <= 0:
        raise UserError(f"--timeout {args.timeout}: give a number of seconds above 0")
    store = ProfileStore.default()
    timings = latency.time_all(store, args.calls, args.timeout)
    if not any(not t.skipped for t in timings):
        print("no profile has a key to time it with; `judgeaudit key set NAME` stores one")
        return 0
    width = max(len(t.profile) for t in timings)
    print(f"{'profile':<{width}}  app     TTFT p50   p95      ok  endpoint")
    skipped = [t for t in timings if t.skipped]
    timings = [t for t in timings if not t.skipped]
    for t in timings:
        p50 = f"{t.p50:.0f} ms" if t.p50 is not None else "-"
        p95 = f"{t.p95:.0f} ms" if t.p95 is not None else "-"
        ok = f"{len(t.ttft_ms)}/{len(t.ttft_ms) + len(t.problems)}"
        print(f"{t.profile:<{width}}  {t.app:<6}  {p50:>8}  {p95:>8}  {ok:>4}  {t.endpoint}")
        for problem in dict.fromkeys(t.problems):
            print(f"{'':<{width}}  ! {problem}")
    if skipped:
        names = ", ".join(t.profile for t in skipped)
        print(f"not timed (no key stored or exported): {names}")
    latency.save(store.root, [*timings, *skipped])
    print(
        f"time to first token over {args.calls} streamed call(s) per profile; p95 by linear "
        "interpolation (with few calls it is close to the slowest)"
    )
    return 0 if all(not t.problems for t in timings) else 1


def off_sdk(store: ProfileStore, dry_run: bool) -> int:
    """``profile off sdk``: an SDK profile wrote no file, so only its reminder (*) goes."""
    from judgeaudit.profiles.switch import turn_off

    marked = active_here.here(store.state()).get("sdk")
    turn_off(store, "sdk", dry_run=dry_run)
    if not marked:
        print("no sdk profile was active; nothing to change")
    else:
        later = " (a dry run: still marked)" if dry_run else ""
        print(f"{marked} is no longer the active sdk profile (it wrote no file){later}")
    return 0


def marked_here(store: ProfileStore, app: str, project_dir: Path | None) -> str | None:
    """The profile marked active for ``app`` here (in ``project_dir``'s binding when given)."""
    state = store.state()
    if project_dir is not None:
        bound: str | None = state.get("projects", {}).get(str(project_dir), {}).get(app)
        return bound
    return active_here.here(state).get(app)


def nothing_to_undo(app: str, paths: list[Path], project_dir: Path | None) -> int:
    """``profile off`` when no profile was on and no file would change: one line, exit 0
    (before: a "no change" diff line and "judgeaudit is off ...: your values back")."""
    scope = f" in {project_dir}" if project_dir is not None else ""
    files = ", ".join(str(p) for p in paths) or "no file"
    print(f"nothing to undo: no judgeaudit profile is on for {app}{scope} ({files} left as it is)")
    return 0

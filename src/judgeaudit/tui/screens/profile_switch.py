"""The Profiles screen's two transactions, as the CLI's ``profile use`` and ``profile off``:
plan in a thread worker, show the diff preview (``ConfirmDiff``), apply on ``y`` through the
same transaction, and say the outcome on the screen's status line. Kept apart from the screen,
which binds the keys and lists the profiles."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from judgeaudit.errors import JudgeauditError
from judgeaudit.profiles.model import Profile
from judgeaudit.tui.screens.modals import ConfirmDiff

if TYPE_CHECKING:
    from judgeaudit.profiles.switch import SwitchResult
    from judgeaudit.tui.screens.profiles import ProfilesScreen

SDK_SWITCH = (
    "No file changes: an SDK profile is not written into any tool's files.\n"
    "Switching only marks {name} as the active SDK profile (*), a reminder for you. A program\n"
    "gets its base URL, model and key (from the keyring) when started with\n"
    '  judgeaudit exec {name} -- CMD    or    eval "$(judgeaudit env {name})"\n'
    "Off (o) clears the mark."
)


def _io(screen: ProfilesScreen, job: Callable[[], None]) -> None:
    """A file or keyring job: one at a time, off the event loop."""
    screen.run_worker(job, thread=True, group="profiles-io", exclusive=True)


# --- switch ------------------------------------------------------------------------------------
def plan_switch(screen: ProfilesScreen, profile: Profile) -> None:
    screen.status(f"planning the switch to {profile.name}…")

    def work() -> None:
        from judgeaudit.profiles.livefile import refuse_read_only
        from judgeaudit.profiles.switch import use_profile

        try:
            plan = use_profile(screen.store, profile.name, dry_run=True)
            refuse_read_only(plan.read_only)  # the switch would: said before the preview
        except JudgeauditError as exc:
            screen.app.call_from_thread(
                screen.status, f"cannot switch to {profile.name}: {exc}", True
            )
            return
        from judgeaudit.profiles import active as active_here

        marked = active_here.here(screen.store.state()).get(profile.app)
        instead = (
            SDK_SWITCH.format(name=profile.name)
            if profile.app == "sdk"
            else f"{profile.app}: no file changes"
        )
        screen.app.call_from_thread(
            confirm_switch, screen, profile, plan, instead, blocked(plan, marked)
        )

    _io(screen, work)


def blocked(plan: SwitchResult, marked: str | None) -> str | None:
    """Why the preview of ``plan`` has nothing to apply (``marked``: the profile active here
    for its app): the switch itself refuses, or it would write nothing. None: y applies it."""
    if plan.refusal:
        return f"y applies nothing: the switch refuses ({plan.refusal})"
    if not plan.nothing_to_write(marked):
        return None
    if plan.app == "sdk":
        return f"y applies nothing: {plan.profile} is the active SDK profile (*) already"
    return (
        f"y applies nothing: {plan.profile} is active already and {plan.app}'s files hold "
        "what it writes"
    )


def confirm_switch(
    screen: ProfilesScreen,
    profile: Profile,
    plan: SwitchResult,
    instead: str,
    nothing: str | None = None,
) -> None:
    screen.status("")

    def confirmed(answer: bool | None) -> None:
        if answer:
            apply_switch(screen, profile.name)

    title = f"Switch {profile.app} to {profile.name}?"
    screen.app.push_screen(ConfirmDiff.preview(title, plan, instead, nothing), confirmed)


def apply_switch(screen: ProfilesScreen, name: str) -> None:
    def switch() -> SwitchResult:
        from judgeaudit.profiles.switch import use_profile

        return use_profile(screen.store, name)

    _apply(
        screen,
        switch,
        "switch failed",
        lambda result: (
            "; ".join(filter(None, [f"active {result.app} profile: {name}", result.token_line()])),
            False,
        ),
    )


def _apply(
    screen: ProfilesScreen,
    transaction: Callable[[], SwitchResult],
    failed: str,
    said: Callable[[SwitchResult], tuple[str, bool]],
) -> None:
    """Run a switch or an off (``transaction``) in a worker, then say on the status line
    ``FAILED, nothing changed: ERR`` or what ``said`` makes of the result (and whether it
    lasts) with its backups, and reload the list."""

    def work() -> None:
        try:
            result = transaction()
        except JudgeauditError as exc:
            screen.app.call_from_thread(screen.status, f"{failed}, nothing changed: {exc}", True)
            return
        text, lasting = said(result)
        made = f" (backups: {', '.join(result.backups)})" if result.backups else ""
        screen.app.call_from_thread(screen.status, f"{text}{made}", False, lasting)
        screen.app.call_from_thread(screen.reload)

    _io(screen, work)


# --- off: the user's own settings back ---------------------------------------------------------
def plan_off(screen: ProfilesScreen, app: str) -> None:
    screen.status(f"planning to turn judgeaudit off in {app}…")

    def work() -> None:
        from judgeaudit.profiles.livefile import refuse_read_only
        from judgeaudit.profiles.switch import turn_off

        try:
            plan = turn_off(screen.store, app, dry_run=True)
            refuse_read_only(plan.read_only)
        except JudgeauditError as exc:
            screen.app.call_from_thread(screen.status, f"cannot turn {app} off: {exc}", True)
            return
        from judgeaudit.profiles import active as active_here

        marked = active_here.here(screen.store.state()).get(app)
        if plan.nothing_to_undo(marked):  # the CLI's test
            screen.app.call_from_thread(screen.status, f"{app}: judgeaudit changed nothing to undo")
            return
        if app == "sdk" and marked:
            plan.diff = f"no file changes; {marked} is no longer marked active (*)"
        screen.app.call_from_thread(confirm_off, screen, plan)

    _io(screen, work)


def confirm_off(screen: ProfilesScreen, plan: SwitchResult) -> None:
    screen.status("")
    app = plan.app

    def confirmed(answer: bool | None) -> None:
        if answer:
            apply_off(screen, app)

    held = " but those held back: see the note" if plan.held else ""
    title = f"Turn judgeaudit off in {app}? (your own settings come back{held})"
    screen.app.push_screen(ConfirmDiff.preview(title, plan, plan.diff), confirmed)


def apply_off(screen: ProfilesScreen, app: str) -> None:
    def off() -> SwitchResult:
        from judgeaudit.profiles.switch import turn_off

        return turn_off(screen.store, app)

    def said(result: SwitchResult) -> tuple[str, bool]:
        held = ", ".join(name for plan in result.plans for name in plan.held)
        return result.off_line(note=f"{held}; o again shows why and how to get them"), result.held

    _apply(screen, off, "not turned off", said)

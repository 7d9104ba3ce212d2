"""The Profiles screen's less frequent tools, as the CLI has them: remove a profile, delete a
key, import from CC Switch, read the doctor. Each asks before it changes anything and runs its
file or keyring work in a thread worker; the screen shows the outcome on its status line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from judgeaudit.errors import JudgeauditError
from judgeaudit.profiles import active as active_here
from judgeaudit.profiles import bridgetokens, doctor, secrets
from judgeaudit.profiles.active import key_in_use
from judgeaudit.profiles.model import Profile
from judgeaudit.tui.screens.modals import ConfirmDiff
from judgeaudit.tui.widgets.table_prompt import TextPrompt

if TYPE_CHECKING:
    from judgeaudit.tui.screens.profiles import ProfilesScreen

CCSWITCH_DB = Path.home() / ".cc-switch" / "cc-switch.db"


class TextView(ModalScreen[None]):
    """A read-only page (the doctor's report) that scrolls, with its close button outside."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Close")]

    def __init__(self, title: str, body: str) -> None:
        super().__init__(classes="modal")
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="text-view"):
            yield Static(self.title_text, classes="title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(self.body, markup=False, id="text-view-body")
            with Horizontal(classes="buttons"):
                yield Button("Close (Esc)", id="close", variant="primary", compact=True)

    def action_close(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)


def remove_profile(screen: ProfilesScreen, profile: Profile) -> None:
    store = screen.store
    active = [app for app, name in active_here.here(store.state()).items() if name == profile.name]
    notes = [
        f"{profile.name} is switched on for {app}; its files still point at this provider: "
        f"turn {app} off (o) to get your own values back"
        for app in active
        if app != "sdk"
    ]
    body = f"{store.user_dir / (profile.name + '.toml')} is deleted; its key stays in the keyring"

    def work() -> None:
        try:
            store.remove(profile.name)
        except JudgeauditError as exc:
            screen.app.call_from_thread(screen.status, f"not removed: {exc}", True)
            return
        screen.app.call_from_thread(screen.status, f"removed {profile.name}")
        screen.app.call_from_thread(screen.reload)

    def answered(yes: bool | None) -> None:
        if yes:
            screen.run_worker(work, thread=True, group="profiles-io", exclusive=True)

    screen.app.push_screen(ConfirmDiff(f"Remove profile {profile.name}?", body, notes), answered)


def delete_key(screen: ProfilesScreen, profile: Profile) -> None:
    if not profile.key:
        screen.status("this profile has no key name", bad=True)
        return
    key = profile.key
    users, active = active_here.key_users(screen.store, key)
    body = f"the keyring entry {key!r} (service judgeaudit) is deleted; profiles using it: " + (
        ", ".join(users)
    )
    notes = [key_in_use(key, use) for use in active]

    def work() -> None:
        deleted = secrets.delete_key(key)
        bridgetokens.follow_key(screen.store, key, renew=False)
        said = f"deleted key {key}" if deleted else f"no stored key {key}"
        screen.app.call_from_thread(screen.status, said, not deleted)
        screen.app.call_from_thread(screen.reload)

    def answered(yes: bool | None) -> None:
        if yes:
            screen.run_worker(work, thread=True, group="profiles-io", exclusive=True)

    screen.app.push_screen(ConfirmDiff(f"Delete the key {key}?", body, notes), answered)


def import_ccswitch(screen: ProfilesScreen) -> None:
    from judgeaudit.profiles.ccswitch import import_ccswitch as run_import

    def work(path: Path) -> None:
        try:
            report = run_import(screen.store, path)
        except JudgeauditError as exc:
            screen.app.call_from_thread(screen.status, f"nothing imported: {exc}", True)
            return
        keys = f", {len(report.keys_stored)} keys to the keyring" if report.keys_stored else ""
        said = f"CC Switch: {len(report.imported)} imported{keys}, {len(report.skipped)} skipped"
        if report.imported:
            said += f" ({', '.join(report.imported)})"
        screen.app.call_from_thread(screen.status, said)
        screen.app.call_from_thread(screen.reload)

    def chosen(text: str | None) -> None:
        if text:
            screen.run_worker(
                lambda: work(Path(text).expanduser()), thread=True, group="profiles-io"
            )

    hint = "Import CC Switch providers from this database (keys go to the keyring) — Enter, Esc"
    screen.app.push_screen(TextPrompt(str(CCSWITCH_DB), hint), chosen)


def show_doctor(screen: ProfilesScreen) -> None:
    store = screen.store

    def work() -> None:
        active = active_here.here(store.state())
        removed = {app for app, name in active.items() if not store.exists(name)}
        lines = doctor.report(None, active, removed=removed)
        view = TextView("Doctor — what Claude Code and Codex will use, and why", "\n".join(lines))
        screen.app.call_from_thread(screen.app.push_screen, view)

    screen.run_worker(work, thread=True, group="profiles-io")

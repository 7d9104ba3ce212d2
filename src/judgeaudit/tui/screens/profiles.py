"""Profiles (the default screen): grouped by app, active marked, keys masked; switch (or turn
judgeaudit off in an app) with a diff preview through the same transaction as the CLI.

Everything that touches files or the keyring runs in a thread worker (each key is read once per
refresh, however many profiles share it); the table keeps its cursor on the same profile name
across refreshes, so the next key acts on the profile the user was looking at. The listing is
read again whenever the screen is shown, so what the CLI changed meanwhile (`profile off`, a
switch, a broken file) is what the screen says, with the doctor's warnings under the keyring's."""

from __future__ import annotations

from typing import ClassVar
from urllib.parse import urlsplit

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from judgeaudit.errors import JudgeauditError
from judgeaudit.hosts import is_loopback_host
from judgeaudit.profiles.model import Profile
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.profile_listing import (
    COLUMNS,
    Listing,
    listing_rows,
    problem_lines,
    read_listing,
)
from judgeaudit.tui.screens.modals import KeyEntry, ProfileForm
from judgeaudit.tui.widgets.fit_table import FitTable
from judgeaudit.tui.widgets.note import Note

# The keyring (secrets: ~75 ms of imports), switching, restoring, the backups dialog and the
# less frequent tools load in the worker or key that first uses them, not before the first paint.

#: seconds a done-message ("saved …", "active claude profile: …") stays on the status line
STATUS_FADE_S = 8.0
#: sent when a loopback endpoint is tested without a stored key (local servers accept any)
NO_KEY = "judgeaudit-no-key"


class ProfilesScreen(Screen[None]):
    SUB_TITLE = "Profiles"
    AUTO_FOCUS = "#profiles-table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,u", "switch", "Switch", key_display="u"),
        Binding("a", "add", "Add"),
        Binding("e", "edit", "Edit"),
        Binding("k", "set_key", "Key"),
        Binding("t", "test", "Test"),
        Binding("o", "turn_off", "Off"),
        Binding("b", "backups", "Backups"),
        # the less frequent tools: in the help and the palette, not the footer (80 columns)
        Binding("D", "remove", "Remove profile", show=False),
        Binding("K", "delete_key", "Delete key", show=False),
        Binding("I", "import_ccswitch", "Import CC Switch", show=False),
        Binding("d", "doctor", "Doctor", show=False),
    ]

    def __init__(self, store: ProfileStore) -> None:
        super().__init__(id="profiles")
        self.store = store
        self.profiles: dict[str, Profile] = {}
        self.listing: Listing | None = None
        self.problem_before_dialog = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Profiles — * marks the active profile per app", classes="title")
        yield Note("", id="keyring-status", classes="-bad")
        yield FitTable(COLUMNS, cursor_type="row", id="profiles-table", zebra_stripes=True)
        yield Note("", id="profiles-status", classes="hint")
        yield Footer(compact=True)

    @property
    def table(self) -> FitTable:
        return self.query_one(FitTable)

    def on_screen_suspend(self) -> None:
        note = self.query_one("#profiles-status", Note)
        self.problem_before_dialog = bool(note.display and note.has_class("-bad"))

    def on_screen_resume(self) -> None:
        # a problem said before a dialog opened was read and acted on (a new user saw a refusal
        # stay through three dialogs after the file was fixed); one said since stays
        if self.problem_before_dialog:
            self.problem_before_dialog = False
            self.status("")
        # on first show too, and after the CLI or a dialog changed something; the first time
        # after the screen is painted: the worker imports the keyring and asks D-Bus, which held
        # the GIL the first paint needed (issue 23, goal 3)
        if self.listing is None:
            self.call_after_refresh(self.reload)
        else:
            self.reload()

    def reload(self, select: str | None = None) -> None:
        self.table.loading = True
        self.load_listing(select)

    @work(thread=True, exclusive=True, group="profiles")
    def load_listing(self, select: str | None) -> None:
        try:
            listing = read_listing(self.store)
        except JudgeauditError as exc:
            self.app.call_from_thread(self.listing_failed, str(exc))
            return
        self.app.call_from_thread(self.show_listing, listing, select)

    def listing_failed(self, message: str) -> None:
        self.table.loading = False
        self.status(message, bad=True)

    def show_listing(self, listing: Listing, select: str | None) -> None:
        self.listing = listing
        self.profiles = {p.name: p for p in listing.profiles}
        self.query_one("#keyring-status", Note).say("\n".join(problem_lines(listing)))
        self.table.set_rows(listing_rows(listing), cursor=select)
        self.table.loading = False

    def status(self, text: str, bad: bool = False, lasting: bool = False) -> None:
        """A problem, work still going ("testing c…") or a ``lasting`` one (values ``off`` held
        back) stays until the next message; a done-message fades after ``STATUS_FADE_S``."""
        lasting = lasting or bad or text.endswith("…")
        self.query_one("#profiles-status", Note).say(text, bad, None if lasting else STATUS_FADE_S)

    def selected(self) -> Profile | None:
        key = self.table.selected_key()
        return None if key is None else self.profiles.get(key)

    def select_profile(self, name: str) -> bool:
        """Put the cursor on a profile (the palette's per-profile actions use this)."""
        return name in self.profiles and self.table.put_cursor(name)

    def on_data_table_row_selected(self, event: FitTable.RowSelected) -> None:
        self.action_switch()

    # --- switch, off: profile_switch -----------------------------------------------------------
    def action_switch(self) -> None:
        from judgeaudit.tui.screens import profile_switch

        profile = self.selected()
        if profile is not None:
            profile_switch.plan_switch(self, profile)

    def action_turn_off(self) -> None:
        profile = self.selected()
        if profile is not None:
            self.plan_off(profile.app)

    def plan_off(self, app: str) -> None:
        """Turn judgeaudit off in ``app`` (the palette's per-app entries call this too)."""
        from judgeaudit.tui.screens import profile_switch

        profile_switch.plan_off(self, app)

    # --- add / edit ----------------------------------------------------------------------------
    def action_add(self) -> None:
        self.app.push_screen(ProfileForm(), self.saved)

    def action_edit(self) -> None:
        profile = self.selected()
        if profile is not None:
            self.app.push_screen(ProfileForm(profile), self.saved)

    def saved(self, profile: Profile | None) -> None:
        if profile is not None:
            self.save_profile(profile)

    @work(thread=True, exclusive=True, group="profiles-io")
    def save_profile(self, profile: Profile) -> None:
        from judgeaudit.profiles import bridgeports  # its bridge_port: refused as the CLI's

        try:
            path = bridgeports.save(self.store, profile)
        except (JudgeauditError, OSError) as exc:
            self.app.call_from_thread(self.status, f"not saved: {exc}", True)
            return
        from judgeaudit.profiles import drift

        note = drift.edit_note(self.store, profile.name)  # active: how to apply it
        said = f"saved {profile.name} -> {path}" + (f"; {note}" if note else "")
        self.app.call_from_thread(self.status, said)
        self.app.call_from_thread(self.reload, profile.name)

    # --- keys ----------------------------------------------------------------------------------
    def action_set_key(self) -> None:
        profile = self.selected()
        if profile is None:
            return
        if not profile.key:
            self.status("this profile has no key name; edit it (e) and set key first", bad=True)
            return
        if self.listing is not None and not self.listing.keyring_ok:
            self.status(f"cannot store a key: {self.listing.keyring_note}", bad=True)
            return
        key_name = profile.key
        current = self.listing.keys.get(key_name, "missing") if self.listing else "missing"

        def entered(value: str | None) -> None:
            if value:
                self.store_key(key_name, value)

        where = self.listing.keyring_label if self.listing else "the keyring"
        self.app.push_screen(KeyEntry(key_name, current, where), entered)

    @work(thread=True, exclusive=True, group="profiles-io")
    def store_key(self, key_name: str, value: str) -> None:
        from judgeaudit.profiles import bridgetokens, secrets

        try:
            secrets.set_key(key_name, value)
            # a new key renews its bridged profiles' local tokens, as `key set` does (one owner)
            renewed = bridgetokens.follow_key(self.store, key_name, renew=True)
        except JudgeauditError as exc:
            self.app.call_from_thread(self.status, str(exc), True)
            return
        said = f"stored key {key_name} ({secrets.mask(value)}) in {secrets.storage_label()}"
        if renewed:
            said += f"; {bridgetokens.renewed_note(renewed)}"
        self.app.call_from_thread(self.status, said)
        self.app.call_from_thread(self.reload)

    # --- test ----------------------------------------------------------------------------------
    def action_test(self) -> None:
        profile = self.selected()
        if profile is not None:
            self.status(f"testing {profile.name}…")
            self.run_probe(profile)

    @work(thread=True, exclusive=True, group="probe")
    def run_probe(self, profile: Profile) -> None:
        from judgeaudit.profiles import secrets

        note = ""
        try:
            key = secrets.resolve_key(profile)
        except secrets.SecretError as exc:
            if not is_loopback_host(urlsplit(profile.base_url).hostname or ""):
                fix = f"; press k to set key {profile.key}" if profile.key else ""
                self.app.call_from_thread(self.status, f"{exc}{fix}", True)
                return
            why = secrets.missing_key_note(profile)
            key, note = NO_KEY, f" ({why}: tried without a key, as a local server allows)"

        from judgeaudit.profiles.probe import probe  # aiohttp: on the first test

        result = probe(profile, key)
        self.app.call_from_thread(
            self.status, f"{profile.name}{note}: " + "; ".join(result.lines), not result.ok
        )

    # --- the less frequent tools (profile_tools) ----------------------------------------------
    def action_remove(self) -> None:
        from judgeaudit.tui.screens import profile_tools

        profile = self.selected()
        if profile is not None:
            profile_tools.remove_profile(self, profile)

    def action_delete_key(self) -> None:
        from judgeaudit.tui.screens import profile_tools

        profile = self.selected()
        if profile is not None:
            profile_tools.delete_key(self, profile)

    def action_import_ccswitch(self) -> None:
        from judgeaudit.tui.screens import profile_tools

        profile_tools.import_ccswitch(self)

    def action_doctor(self) -> None:
        from judgeaudit.tui.screens import profile_tools

        profile_tools.show_doctor(self)

    # --- backups -------------------------------------------------------------------------------
    def action_backups(self) -> None:
        from judgeaudit.tui.screens.backups_dialog import BackupPicker

        self.app.push_screen(BackupPicker(self.store), self.picked_backup)

    def picked_backup(self, backup_id: str | None) -> None:
        if backup_id is not None:
            self.restore_backup(backup_id)

    @work(thread=True, exclusive=True, group="profiles-io")
    def restore_backup(self, backup_id: str) -> None:
        from judgeaudit.profiles import restore

        try:
            restored = restore.restore(self.store, backup_id)
        except JudgeauditError as exc:
            self.app.call_from_thread(self.status, str(exc), True)
            return
        aside = (
            f"; the unreadable file is kept as {restored.set_aside}" if restored.set_aside else ""
        )
        said = f"restored {restored.original} from {backup_id}{aside}"
        if restored.unchanged:  # "restored" had done nothing
            said = restore.unchanged_line(restored)
        self.app.call_from_thread(self.status, said)
        self.app.call_from_thread(self.reload)  # the active markers follow the restored file

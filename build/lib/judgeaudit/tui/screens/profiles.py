"""Profiles (the default screen): grouped by app, active marked, keys masked; switch with a diff
preview through the same transaction as the CLI."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from judgeaudit.profiles import backups, secrets
from judgeaudit.profiles.model import APPS, Profile, ProfileError
from judgeaudit.profiles.probe import probe
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import use_profile
from judgeaudit.tui.screens.modals import BackupPicker, ConfirmDiff, KeyEntry, ProfileForm


class ProfilesScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,u", "switch", "Switch"),
        Binding("a", "add", "Add"),
        Binding("e", "edit", "Edit"),
        Binding("k", "set_key", "Set key"),
        Binding("t", "test", "Test"),
        Binding("b", "backups", "Backups"),
    ]

    def __init__(self, store: ProfileStore) -> None:
        super().__init__(id="profiles")
        self.store = store
        self.profiles: dict[str, Profile] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Profiles — * marks the active profile per app", classes="title")
        table: DataTable[str] = DataTable(
            cursor_type="row", id="profiles-table", zebra_stripes=True
        )
        yield table
        yield Static("", id="profiles-status", classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("app", " ", "name", "base URL", "model", "key")
        self.refresh_table()

    def refresh_table(self) -> None:
        table: DataTable[str] = self.query_one(DataTable)
        table.clear()
        try:
            listed = self.store.list()
            active = self.store.state()["active"]
        except ProfileError as exc:
            self.status(str(exc), bad=True)
            return
        self.profiles = {p.name: p for p in listed}
        for app in APPS:
            for p in (p for p in listed if p.app == app):
                key = (
                    secrets.mask(secrets.get_key(p.key))
                    if p.key
                    else (f"env {p.key_env}" if p.key_env else "-")
                )
                label = f"{p.key} {key}" if p.key else key
                table.add_row(
                    app,
                    "*" if active.get(app) == p.name else "",
                    p.name,
                    p.base_url,
                    p.model or "-",
                    label,
                    key=p.name,
                )

    def status(self, text: str, bad: bool = False) -> None:
        widget = self.query_one("#profiles-status", Static)
        widget.update(text)
        widget.set_class(bad, "-bad")
        widget.set_class(not bad, "-ok")

    def selected(self) -> Profile | None:
        table: DataTable[str] = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.profiles.get(str(key))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_switch()

    def action_switch(self) -> None:
        profile = self.selected()
        if profile is None:
            return
        try:
            plan = use_profile(self.store, profile.name, dry_run=True)
        except (ProfileError, secrets.SecretError) as exc:
            self.status(f"cannot switch to {profile.name}: {exc}", bad=True)
            return

        def confirmed(answer: bool | None) -> None:
            if answer:
                self.apply_switch(profile.name)

        title = f"Switch {profile.app} to {profile.name}?"
        self.app.push_screen(
            ConfirmDiff(title, plan.diff or f"{profile.app}: no file changes", plan.warnings),
            confirmed,
        )

    def apply_switch(self, name: str) -> None:
        try:
            result = use_profile(self.store, name)
        except (ProfileError, secrets.SecretError) as exc:
            self.status(f"switch failed, nothing changed: {exc}", bad=True)
            return
        made = f" (backups: {', '.join(result.backups)})" if result.backups else ""
        self.status(f"active {result.app} profile: {name}{made}")
        self.refresh_table()

    def action_add(self) -> None:
        self.app.push_screen(ProfileForm(), self._saved)

    def action_edit(self) -> None:
        profile = self.selected()
        if profile is not None:
            self.app.push_screen(ProfileForm(profile), self._saved)

    def _saved(self, profile: Profile | None) -> None:
        if profile is None:
            return
        path = self.store.save(profile)
        self.status(f"saved {profile.name} -> {path}")
        self.refresh_table()

    def action_set_key(self) -> None:
        profile = self.selected()
        if profile is None or not profile.key:
            self.status("this profile has no key name; edit it and set key first", bad=True)
            return
        key_name = profile.key

        def entered(value: str | None) -> None:
            if not value:
                return
            try:
                secrets.set_key(key_name, value)
            except (secrets.SecretError, ProfileError) as exc:
                self.status(str(exc), bad=True)
                return
            self.status(f"stored key {key_name} ({secrets.mask(value)}) in the OS keyring")
            self.refresh_table()

        self.app.push_screen(KeyEntry(key_name, secrets.mask(secrets.get_key(key_name))), entered)

    def action_test(self) -> None:
        profile = self.selected()
        if profile is None:
            return
        try:
            key = secrets.resolve_key(profile)
        except secrets.SecretError as exc:
            self.status(str(exc), bad=True)
            return
        self.status(f"testing {profile.name}…")
        self.run_probe(profile, key)

    @work(thread=True, exclusive=True, exit_on_error=False, group="probe")
    def run_probe(self, profile: Profile, key: str) -> None:
        result = probe(profile, key)
        self.app.call_from_thread(
            self.status, f"{profile.name}: " + "; ".join(result.lines), not result.ok
        )

    def action_backups(self) -> None:
        def picked(backup_id: str | None) -> None:
            if backup_id is None:
                return
            try:
                restored = backups.restore(self.store, backup_id)
            except ProfileError as exc:
                self.status(str(exc), bad=True)
                return
            self.status(f"restored {restored.original} from {backup_id}")

        self.app.push_screen(BackupPicker(backups.list_backups(self.store)), picked)

"""Profile dialogs: confirm a diff, enter a key, edit a profile, pick a backup.

Every dialog keeps its buttons outside the part that scrolls, so at 80×24 each button and field
is reachable however long the diff or the warnings are."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Select, Static

from judgeaudit.profiles import backups
from judgeaudit.profiles.model import APPS, Profile, ProfileError, profile_from_dict
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.field import Field
from judgeaudit.tui.widgets.fit_table import Col, FitTable, Row


class ConfirmDiff(ModalScreen[bool]):
    """Shows what a switch will change; y applies, n or escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Apply"),
        Binding("n,escape", "answer(False)", "Cancel"),
    ]

    def __init__(self, title: str, diff: str, warnings: list[str]) -> None:
        super().__init__(classes="modal")
        self.title_text, self.diff, self.warnings = title, diff, warnings

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm-diff"):
            yield Static(self.title_text, classes="title")
            with VerticalScroll(id="diff", classes="dialog-body"):
                for warning in self.warnings:
                    yield Static(f"warning: {warning}", classes="-bad", markup=False)
                yield Static(self.diff or "no change", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Apply (y)", id="yes", variant="primary", compact=True)
                yield Button("Cancel (n)", id="no", compact=True)

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class KeyEntry(ModalScreen[str | None]):
    """A password input: the key is never echoed, and only its last 4 characters are shown."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, key_name: str, current: str) -> None:
        super().__init__(classes="modal")
        self.key_name, self.current = key_name, current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="key-entry"):
            yield Static(
                f"Key {self.key_name} (now {self.current}) — stored in the OS keyring",
                classes="title",
            )
            yield Field(
                password=True, placeholder="paste the API key, then Enter", id="key", compact=True
            )
            with Horizontal(classes="buttons"):
                yield Button("Store (Enter)", id="store", variant="primary", compact=True)
                yield Button("Cancel (Esc)", id="cancel", compact=True)

    def on_input_submitted(self, event: Field.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "store":
            self.dismiss(self.query_one("#key", Field).value.strip() or None)
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


FIELDS = ("name", "base_url", "model", "key", "key_env")


class ProfileForm(ModalScreen[Profile | None]):
    """Add or edit a profile; validated with the same rules as the CLI before it is returned."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save"),
    ]

    def __init__(self, profile: Profile | None = None) -> None:
        super().__init__(classes="modal")
        self.profile = profile

    def compose(self) -> ComposeResult:
        p = self.profile
        with Vertical(classes="dialog form", id="profile-form"):
            yield Static("Edit profile" if p else "Add profile", classes="title")
            with VerticalScroll(classes="dialog-body", can_focus=False):
                with Horizontal():
                    yield Label("app")
                    yield Select(
                        [(a, a) for a in APPS],
                        value=p.app if p else "sdk",
                        allow_blank=False,
                        id="f-app",
                        compact=True,
                    )
                for name in FIELDS:
                    with Horizontal():
                        yield Label(name)
                        value = "" if p is None else str(getattr(p, name) or "")
                        yield Field(
                            value=value,
                            id=f"f-{name}",
                            disabled=p is not None and name == "name",
                            compact=True,
                        )
            yield Static("", id="form-error", classes="-bad")
            with Horizontal(classes="buttons"):
                yield Button("Save (ctrl+s)", id="save", variant="primary", compact=True)
                yield Button("Cancel (Esc)", id="cancel", compact=True)

    def on_mount(self) -> None:
        # the first field to type in: the name, or (editing) the base URL
        self.query_one("#f-base_url" if self.profile else "#f-name", Field).focus()

    def _data(self) -> dict[str, Any]:
        data: dict[str, Any] = {n: self.query_one(f"#f-{n}", Field).value.strip() for n in FIELDS}
        data["app"] = self.query_one("#f-app", Select).value
        data = {k: v for k, v in data.items() if v}
        if self.profile is not None:
            data["options"] = dict(self.profile.options)
            for price in ("price_in", "price_out"):
                if getattr(self.profile, price) is not None:
                    data[price] = getattr(self.profile, price)
        return data

    def action_save(self) -> None:
        try:
            profile = profile_from_dict(self._data(), "form")
        except ProfileError as exc:
            self.query_one("#form-error", Static).update(str(exc).removeprefix("form: "))
            return
        self.dismiss(profile)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self.action_save()
        else:
            self.dismiss(None)


BACKUP_COLUMNS = (
    Col("id", "id", min=10),
    Col("taken", "taken", min=10, drop=2),
    Col("file", "file", min=12, drop=1),
    Col("profile", "before switching to", min=10),
)


class BackupPicker(ModalScreen[str | None]):
    """Lists backups (read in a worker); Enter restores the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Close")]

    def __init__(self, store: ProfileStore) -> None:
        super().__init__(classes="modal")
        self.store = store

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="backup-picker"):
            yield Static(
                "Backups — Enter restores (the current file is backed up first)", classes="title"
            )
            yield FitTable(BACKUP_COLUMNS, cursor_type="row", id="backups", classes="dialog-body")
            yield Static("", id="backups-empty", classes="-muted")
            with Horizontal(classes="buttons"):
                yield Button("Restore (Enter)", id="restore", variant="primary", compact=True)
                yield Button("Close (Esc)", id="close", compact=True)

    def on_mount(self) -> None:
        self.query_one(FitTable).loading = True
        self.load()

    @work(thread=True, exclusive=True, group="backups")
    def load(self) -> None:
        found = backups.list_backups(self.store)
        self.app.call_from_thread(self.show, found)

    def show(self, found: list[backups.Backup]) -> None:
        table = self.query_one(FitTable)
        rows: list[Row] = [
            (b.id, {"id": b.id, "taken": b.taken_at, "file": b.original, "profile": b.profile})
            for b in reversed(found)
        ]
        table.set_rows(rows)
        table.loading = False
        self.query_one("#backups-empty", Static).update("" if found else "no backups yet")

    def on_data_table_row_selected(self, event: FitTable.RowSelected) -> None:
        self.dismiss(str(event.row_key.value))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        key = self.query_one(FitTable).selected_key() if event.button.id == "restore" else None
        self.dismiss(key)

    def action_cancel(self) -> None:
        self.dismiss(None)

"""The backups dialog: every backup (newest first) with a preview of the highlighted one, and a
confirmation before anything is restored.

At 80 columns the ids of one app share a long prefix, so the table shows what tells backups
apart (when, which file, before which switch) and the preview below it the whole id, path and
content. The keys judgeaudit handles are markers in a backup (they name the keyring entries);
your own values stay, so both the preview and the confirmation mask as the switch's diff does."""

from __future__ import annotations

import time
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from judgeaudit.profiles import backups
from judgeaudit.profiles.diffview import masked_file
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.terminal import printable
from judgeaudit.tui.screens.modals import ConfirmDiff
from judgeaudit.tui.widgets.fit_table import Col, FitTable, Row

BACKUP_COLUMNS = (
    Col("taken", "taken (UTC)", min=14),
    Col("file", "file", min=10),
    Col("profile", "taken before", min=12, drop=2),
    Col("app", "app", min=6, drop=1),
)
PREVIEW_LINES = 8


def when(taken_at: str) -> str:
    """``2026-12-03T08:59:11Z`` -> ``12-03 08:59:11`` (the year is almost always this one)."""
    try:
        parsed = time.strptime(taken_at, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return taken_at
    return time.strftime("%m-%d %H:%M:%S", parsed)


def content(b: backups.Backup) -> str:
    """What the backup holds, masked as the switch's diff masks (your own keys stay in the
    file, so that a restore gives it back whole, but never on screen)."""
    if b.absent:
        return "(the file did not exist before that switch: restoring removes it)"
    try:
        text = b.path.read_bytes().decode("utf-8", "replace")
        return masked_file(b.app, text, backups.marker_texts(b))
    except OSError as exc:
        return f"(unreadable: {exc.strerror})"


def preview(b: backups.Backup, group: list[backups.Backup], lines: int) -> Text:
    text = Text(f"{b.id}", style="bold")
    text.append(f" · {b.taken_at} · before {backups.occasion(b)}\n")
    text.append(f"{printable(b.original)}\n", style="dim")
    if len(group) > 1:
        text.append(f"this switch wrote {len(group)} files, restored together: ", style="yellow")
        text.append(", ".join(Path(x.original).name for x in group) + "\n", style="yellow")
    body = content(b).splitlines()
    text.append("\n".join(body[:lines]) + ("\n…" if len(body) > lines else ""), style="dim")
    return text


class BackupPicker(ModalScreen[str | None]):
    """Lists backups (read in a worker); Enter asks, then restores the highlighted switch."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Close")]

    def __init__(self, store: ProfileStore) -> None:
        super().__init__(classes="modal")
        self.store = store
        self.found: dict[str, backups.Backup] = {}

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="backup-picker"):
            yield Static("Backups — Enter previews and asks before restoring", classes="title")
            yield FitTable(BACKUP_COLUMNS, cursor_type="row", id="backups")
            yield Static("", id="backups-empty", classes="-muted")
            with VerticalScroll(id="backup-preview-pane"):
                yield Static("", id="backup-preview")
            with Horizontal(classes="buttons"):
                yield Button("Restore… (Enter)", id="restore", variant="primary", compact=True)
                yield Button("Close (Esc)", id="close", compact=True)

    def on_mount(self) -> None:
        self.query_one(FitTable).loading = True
        self.load()

    @work(thread=True, exclusive=True, group="backups")
    def load(self) -> None:
        found = backups.list_backups(self.store)
        self.app.call_from_thread(self.show, found)

    def show(self, found: list[backups.Backup]) -> None:
        self.found = {b.id: b for b in found}
        table = self.query_one(FitTable)
        rows: list[Row] = [
            (
                b.id,
                {
                    "taken": when(b.taken_at),
                    "file": Path(b.original).name,
                    "profile": backups.occasion(b, brief=True),
                    "app": b.app,
                },
            )
            for b in reversed(found)
        ]
        table.set_rows(rows)
        table.loading = False
        self.query_one("#backups-empty", Static).update("" if found else "no backups yet")
        self.show_preview()

    def group(self, b: backups.Backup) -> list[backups.Backup]:
        return [x for x in self.found.values() if x.switch == b.switch]

    def highlighted(self) -> backups.Backup | None:
        key = self.query_one(FitTable).selected_key()
        return self.found.get(key) if key else None

    def show_preview(self) -> None:
        b = self.highlighted()
        shown = preview(b, self.group(b), PREVIEW_LINES) if b else Text("")
        self.query_one("#backup-preview", Static).update(shown)

    def on_data_table_row_highlighted(self, event: FitTable.RowHighlighted) -> None:
        self.show_preview()

    def on_data_table_row_selected(self, event: FitTable.RowSelected) -> None:
        self.confirm()

    def confirm(self) -> None:
        b = self.highlighted()
        if b is None:
            return
        group = self.group(b)
        body = "\n\n".join(f"== {x.original}\n{content(x)}" for x in group)
        notes = [
            f"{x.original} will be replaced by its backup from {x.taken_at}; the current file is "
            "backed up first (an unreadable one is kept beside itself)"
            for x in group
        ]

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(b.id)

        self.app.push_screen(ConfirmDiff(f"Restore the switch of {b.id}?", body, notes), answered)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "restore":
            self.confirm()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

"""Export preferences (Results: x, or the palette): the shown run's pairs as a training file
with its data card, the same export as `judgeaudit export preferences`.

The export streams in a thread worker; a refusal (an existing file without "replace", an
unfinished run, nothing to write) stays in the dialog as one line, so it can be corrected."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Label, Select, Static

from judgeaudit.analysis.pref_card_text import export_summary, left_out_lines
from judgeaudit.analysis.preferences import (
    FORMATS,
    LABELS,
    ExportOptions,
    ExportResult,
    export_preferences,
)
from judgeaudit.analysis.report import ReportOptions
from judgeaudit.errors import JudgeauditError
from judgeaudit.tui.widgets.field import Field
from judgeaudit.tui.widgets.note import Note


def default_path(out: Path, fmt: str, labels: str) -> Path:
    return out / f"preferences.{fmt}.{labels}.jsonl"


class ExportPreferences(ModalScreen[ExportResult | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "export", "Export"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, out: Path, run_id: str | None, buckets: ReportOptions | None = None) -> None:
        super().__init__(classes="modal")
        self.out, self.run_id, self.buckets = out, run_id, buckets
        self.shown_default = str(default_path(out, "trl", "state"))

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="export-prefs"):
            yield Static(
                f"Export preferences — run {self.run_id or '(latest)'}{self.bucketed()}",
                classes="title",
                markup=False,
            )
            with Horizontal(classes="form"):
                yield Label("format")
                yield Select([(f, f) for f in FORMATS], value="trl", allow_blank=False,
                             id="prefs-format", compact=True)  # fmt: skip
                yield Label("labels")
                yield Select([(x, x) for x in LABELS], value="state", allow_blank=False,
                             id="prefs-labels", compact=True)  # fmt: skip
            yield Field(self.shown_default, id="prefs-path", compact=True)
            yield Checkbox("replace the file and its card if they exist", id="prefs-force")
            yield Note("", id="prefs-note")
            with Horizontal(classes="buttons"):
                yield Button("Export (ctrl+s)", id="export", variant="primary", compact=True)
                yield Button("Cancel (Esc)", id="cancel", compact=True)

    def bucketed(self) -> str:
        """The gap source and bins the card will carry, as Results shows them."""
        b = self.buckets
        if b is None or b.gap_source is None:
            return ""
        return f", {b.gap_source} gap" + (
            f", bins {','.join(f'{e:g}' for e in b.bins)}" if b.bins else ""
        )

    def on_select_changed(self, event: Select.Changed) -> None:
        field = self.query_one("#prefs-path", Field)
        if field.value == self.shown_default:  # follow the choices until a path is typed
            self.shown_default = str(default_path(self.out, *self._choices()))
            field.value = self.shown_default

    def _choices(self) -> tuple[str, str]:
        fmt = self.query_one("#prefs-format", Select).value
        labels = self.query_one("#prefs-labels", Select).value
        return str(fmt), str(labels)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "export":
            self.action_export()
        else:
            self.action_cancel()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_export(self) -> None:
        fmt, labels = self._choices()
        path = Path(self.query_one("#prefs-path", Field).value.strip() or ".")
        force = self.query_one("#prefs-force", Checkbox).value
        self.query_one("#prefs-note", Note).say(f"exporting to {path}…", bad=False)
        self.run_export(
            ExportOptions(self.out, fmt, labels, path, force, self.run_id, self.buckets)
        )

    @work(thread=True, exclusive=True, group="export")
    def run_export(self, options: ExportOptions) -> None:
        try:
            result = export_preferences(options)
        except JudgeauditError as exc:
            message = str(exc).replace("pass --force", 'tick "replace"')
            self.app.call_from_thread(self.query_one("#prefs-note", Note).say, message, True)
            return
        self.app.call_from_thread(self.done, result)

    def done(self, result: ExportResult) -> None:
        card = result.card
        self.app.notify(f"{export_summary(card, result.dest)}; data card {result.card_md}")
        for line in left_out_lines(card):  # the CLI's stderr lines: dropped labels said
            self.app.notify(line, severity="warning", timeout=20)
        self.dismiss(result)

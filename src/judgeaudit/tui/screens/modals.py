"""Profile dialogs: confirm a diff, enter a key, edit a profile (backups: backups_dialog).

Every dialog keeps its buttons outside the part that scrolls, so at 80×24 each button and field
is reachable however long the diff or the warnings are."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Select, Static

from judgeaudit.profiles.model import APPS, Profile, ProfileError, profile_from_dict
from judgeaudit.redact import looks_like_key
from judgeaudit.terminal import printable
from judgeaudit.tui.widgets.field import Field

if TYPE_CHECKING:
    from judgeaudit.profiles.switch import SwitchResult


#: a dialog's rows besides its body: the thick border's two, the title's, the buttons' and their margin
FRAME_ROWS = 5
#: the diff's least rows beside long notes: its border and three lines (it scrolls)
DIFF_ROWS = 5
#: under notes that do not all fit: the keys that read the rest (gone once read to the end)
MORE_NOTES = "↓ more notes below — tab/↓ to read them before y"


class ConfirmDiff(ModalScreen[bool]):
    """Shows what a switch will change; y applies, n or escape cancels. The warnings and the
    notes (what it removes, replaces, moves or keeps) are pinned above the diff, which scrolls:
    at 80x24 a note after a long diff was below the fold, and y applied unseen. ``blocked``:
    why there is nothing to apply (the switch refuses, or nothing would be written), said first;
    y then does nothing and Apply is off."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Apply"),
        Binding("n,escape", "answer(False)", "Cancel"),
    ]

    def __init__(
        self,
        title: str,
        diff: str,
        warnings: list[str],
        notes: Sequence[str] = (),
        blocked: str | None = None,
    ) -> None:
        super().__init__(classes="modal")
        self.title_text, self.diff, self.warnings = title, diff, warnings
        self.notes, self.blocked = list(notes), blocked

    @classmethod
    def preview(
        cls, title: str, plan: SwitchResult, instead: str, blocked: str | None = None
    ) -> ConfirmDiff:
        """A switch's (or an off's) preview: its notes pinned, its diff without them below
        (``instead`` when no file changes: the sdk's line)."""
        from judgeaudit.profiles.diffview import render_diff, render_notes

        diff = render_diff(plan.plans, notes=False) if plan.diff else ""
        return cls(title, diff or instead, plan.warnings, render_notes(plan.plans), blocked)

    def compose(self) -> ComposeResult:
        pinned = bool(self.warnings or self.notes or self.blocked)
        with Vertical(classes="dialog", id="confirm-diff"):
            yield Static(self.title_text, classes="title")
            with VerticalScroll(id="pinned", can_focus=False) as pins:
                pins.display = pinned
                if self.blocked:
                    yield Static(
                        printable(self.blocked), id="blocked", classes="-bad", markup=False
                    )
                for warning in self.warnings:  # a settings value's bidi control: shown, not obeyed
                    yield Static(printable(f"warning: {warning}"), classes="-bad", markup=False)
                for note in self.notes:
                    yield Static(printable(f"note: {note}"), classes="note", markup=False)
            yield Static(MORE_NOTES, id="pinned-more", classes="hint")
            with VerticalScroll(id="diff", classes="dialog-body"):
                yield Static(printable(self.diff or "no change", layout=True), markup=False)
            with Horizontal(classes="buttons"):
                yield Button(
                    "Apply (y)",
                    id="yes",
                    variant="primary",
                    compact=True,
                    disabled=self.blocked is not None,
                )
                yield Button("Cancel (n)", id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#pinned-more").display = False
        self.watch(self.query_one("#pinned"), "scroll_y", self.show_more, init=False)
        self.fit()

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """The pinned lines first (all the rows but the diff's least), then the diff takes what
        they leave, up to 60% of the screen as the other dialogs' bodies: the border, the title
        and the buttons stay on screen too. Notes that still do not fit scroll: the pinned area
        then takes the focus (so ↓ reads them) and a line under it says more are below."""
        rows = self.size.height
        pins = self.query_one("#pinned", VerticalScroll)
        pins.styles.max_height = max(3, rows - FRAME_ROWS - DIFF_ROWS)

        def fit_pins() -> None:
            overflow = pins.max_scroll_y > 0
            if not overflow and pins.has_focus:  # a wider screen: ↓ scrolls the diff again
                self.query_one("#diff").focus(scroll_visible=False)
            pins.can_focus = overflow
            if overflow:  # the hint's row comes out of the notes', not the diff's least
                pins.styles.max_height = max(2, rows - FRAME_ROWS - DIFF_ROWS - 1)
                if self.focused is None or self.focused.id == "diff":
                    pins.focus(scroll_visible=False)
            self.show_more()
            self.call_after_refresh(fit_diff)

        def fit_diff() -> None:
            used = pins.outer_size.height + self.query_one("#pinned-more").outer_size.height
            left = rows - FRAME_ROWS - used
            self.query_one("#diff").styles.max_height = max(DIFF_ROWS, min(left, rows * 6 // 10))

        self.call_after_refresh(fit_pins)

    def show_more(self) -> None:
        """The hint while notes are below the pinned area's bottom edge."""
        pins = self.query_one("#pinned", VerticalScroll)
        more = pins.display and pins.max_scroll_y > 0 and pins.scroll_y < pins.max_scroll_y
        self.query_one("#pinned-more").display = more

    def action_answer(self, value: bool) -> None:
        if value and self.blocked:
            return  # nothing to apply: the line at the top says why
        self.dismiss(value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class KeyEntry(ModalScreen[str | None]):
    """A password input: the key is never echoed, and only its last 4 characters are shown."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, key_name: str, current: str, where: str = "the keyring") -> None:
        super().__init__(classes="modal")
        self.key_name, self.current, self.where = key_name, current, where

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="key-entry"):
            yield Static(f"Key {self.key_name} (now {self.current})", classes="title")
            # where `key set` says it goes: a plaintext store the user opted into says so
            yield Static(f"stored in {self.where}", id="key-where", classes="hint", markup=False)
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
            yield Static("", id="form-error", classes="-bad", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Save (ctrl+s)", id="save", variant="primary", compact=True)
                yield Button("Cancel (Esc)", id="cancel", compact=True)

    def on_mount(self) -> None:
        # the first field to type in: the name, or (editing) the base URL
        self.query_one("#f-base_url" if self.profile else "#f-name", Field).focus()

    def on_input_changed(self, event: Field.Changed) -> None:
        """A key pasted into a text field (the key name, most often) is masked at once and the
        form says where a key goes: it was shown in clear, on screen and in any screenshot."""
        keylike = looks_like_key(event.value)
        if keylike or event.input.password:
            event.input.password = keylike
            self.query_one("#form-error", Static).update(
                f"{str(event.input.id).removeprefix('f-')}: that looks like an API key, so it is "
                "hidden; this field takes a name. Save the profile with the key's name, then "
                "press k on it to store the key in the keyring"
                if keylike
                else ""
            )

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
        from judgeaudit.profiles.keysource import check_key

        try:
            profile = profile_from_dict(self._data(), "form")
            had = None if self.profile is None else bool(self.profile.key or self.profile.key_env)
            check_key(profile, "form", ("key NAME", "key_env VAR"), had)  # add's and edit's words
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

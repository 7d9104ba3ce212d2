"""App-wide dialogs: the help that lists every screen and its keys, and "stop the run?"."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Static

from judgeaudit.tui.places import PLACES


def _keys_named(display: str) -> set[str]:
    """The keys a grouped ``key_display`` stands for: ``1-4`` → 1, 2, 3, 4; ``a/b/t`` → a, b, t."""
    keys: set[str] = set()
    for part in display.split("/"):
        low, dash, high = part.partition("-")
        if dash and len(low) == 1 and len(high) == 1 and low <= high:
            keys.update(chr(c) for c in range(ord(low), ord(high) + 1))
        else:
            keys.add(part)
    return keys


def screen_keys(bindings: list[BindingType]) -> str:
    """`key label` pairs of a screen's bindings, in the order the screen declares them. A hidden
    binding its shown group already names (``1-4``, ``a/b/t``) is not listed again: the help
    read "1-4 A/B ok/fail · 2 A failed · 3 B ok …". One key bound twice, each shown when it
    applies (Run's `p` Pause and Resume), is one entry: "p Pause/Resume"."""
    shown = [b for b in bindings if isinstance(b, Binding) and b.description]
    grouped = set().union(*(_keys_named(b.key_display) for b in shown if b.show and b.key_display))
    parts: dict[str, str] = {}
    for binding in shown:
        key = binding.key.split(",")[0]
        if not binding.show and key in grouped:
            continue
        name = binding.key_display or key
        parts[name] = (
            f"{parts[name]}/{binding.description}"
            if name in parts
            else (f"{name} {binding.description}")
        )
    return " · ".join(parts.values())


class HelpScreen(ModalScreen[None]):
    """Every screen, its function key and its own keys; built from the screens' bindings."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,f10,q", "close", "Close"),
    ]

    def __init__(self, opened_on: Screen[object] | None = None) -> None:
        super().__init__(classes="modal")
        # a screen opened on top of a place (Pairs, Pair, Why, Flipped pairs) has keys no
        # place lists: the help left them out (a new user's finding), so they come first
        self.opened_on = opened_on

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help"):
            yield Static("Help — function keys move between screens", classes="title")
            with VerticalScroll(id="help-body"):
                text = Text()
                on = self.opened_on
                places = [self.app.get_screen(place.name) for place in PLACES]
                if on is not None and all(on is not screen for screen in places):
                    text.append(f"{on.SUB_TITLE or 'This screen'} (this screen)\n", style="bold")
                    text.append(f"    {screen_keys(type(on).BINDINGS)}\n\n", style="dim")
                for place, screen in zip(PLACES, places, strict=True):
                    text.append(f"{place.key.upper():<4}{place.title:<10}", style="bold")
                    text.append(f"{place.summary}\n")
                    keys = screen_keys(type(screen).BINDINGS)
                    if keys:
                        text.append(f"    {keys}\n", style="dim")
                text.append(
                    "\nin every table: / filter · s sort (S reverses) · Home/End · y copy the "
                    "row's id · Y copy the table\n"
                    "ctrl+p  command palette: every main action, by name (switch, key, test, "
                    "run, pause, cancel, results, compare, export)\n"
                    "ctrl+q  quit (during a run: asks, then stops it; it can be resumed)\n"
                    "?/F10   this help · Esc closes a dialog or goes back\n"
                )
                yield Static(text)
            with Horizontal(classes="buttons"):
                yield Button("Close (Esc)", id="close", variant="primary", compact=True)

    def action_close(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)


class ConfirmStop(ModalScreen[bool]):
    """Asked when quitting during a run, and before `c` cancels one (a key that is easy to hit
    must not end an hour-long run)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Stop"),
        Binding("n,escape", "answer(False)", "Keep running"),
    ]

    def __init__(self, quitting: bool = True) -> None:
        super().__init__(classes="modal")
        self.quitting = quitting

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm-stop"):
            yield Static("Stop the run? It can be resumed.", classes="title")
            yield Static(
                "What is stored stays; starting the same spec on the same output dir again "
                "(Launch, or `judgeaudit run`) continues where it stopped."
            )
            with Horizontal(classes="buttons"):
                yes = "Stop and quit (y)" if self.quitting else "Cancel the run (y)"
                yield Button(yes, id="yes", variant="error", compact=True)
                yield Button("Keep running (n)", id="no", compact=True)

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

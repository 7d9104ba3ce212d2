"""A text input that follows the app's `steady` setting, and that Esc leaves.

In a steady app (tests, screenshots, users who dislike blinking) the cursor is steady, so
what is on screen does not depend on when it is looked at. On a screen (not a dialog, where Esc
closes the dialog) Esc gives the keys back to the screen: a new user pressed Esc in the bins
field, then `g`, and the `g` was typed into the field."""

from __future__ import annotations

from textual import events
from textual.screen import ModalScreen
from textual.widgets import Input


class Field(Input):
    def on_mount(self) -> None:
        if getattr(self.app, "steady", False):
            self.cursor_blink = False

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and not isinstance(self.screen, ModalScreen):
            event.stop()
            event.prevent_default()
            self.screen.set_focus(None)

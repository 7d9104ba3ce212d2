"""A text input that follows the app's `steady` setting.

In a steady app (tests, screenshots, users who dislike blinking) the cursor is steady, so
what is on screen does not depend on when it is looked at."""

from __future__ import annotations

from textual.widgets import Input


class Field(Input):
    def on_mount(self) -> None:
        if getattr(self.app, "steady", False):
            self.cursor_blink = False

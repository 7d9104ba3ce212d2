"""A one-off message line that takes no room while it has nothing to say (80×24 has few rows)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from judgeaudit.terminal import printable


class Note(Static):
    """Plain text, never markup: its messages quote paths, names and errors from users' files
    (a profile file naming ``Mix[/i]tral`` crashed the app on its first screen)."""

    def __init__(self, content: str | Text = "", **kwargs: Any) -> None:
        kwargs.setdefault("markup", False)
        super().__init__(content, **kwargs)

    def on_mount(self) -> None:
        self.display = False

    said: str | Text | None = None

    _fade: Timer | None = None

    def say(self, text: str | Text, bad: bool | None = None, fade_s: float | None = None) -> None:
        """``fade_s``: gone after that many seconds unless something else was said since (a
        done-message, not one the user must act on, should not stay for minutes)."""
        if self._fade is not None:
            self._fade.stop()
            self._fade = None
        if isinstance(text, str):  # a value from a user's file: its bidi control shown, not obeyed
            text = printable(text)
        if fade_s is not None and text:
            self._fade = self.set_timer(fade_s, lambda: self.say(""))
        if text != self.said:  # unchanged: no redraw (the Run screen says its rates 5x a second)
            self.said = text
            self.update(text)
        self.display = bool(text.plain if isinstance(text, Text) else text)
        if bad is not None:
            self.set_class(bad, "-bad")
            self.set_class(not bad, "-ok")

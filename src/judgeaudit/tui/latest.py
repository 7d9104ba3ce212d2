"""Numbered requests, so a late answer is dropped: a worker thread cannot be stopped
(``exclusive`` cancels the worker, not the answer its thread posts when it ends), so each answer
carries the number of the request it answers and is shown only if no request was made, or
dropped, since. The Runs screen numbers its compares, run listings and judge rankings this way,
Results its reports."""

from __future__ import annotations


class Latest:
    """The number of the newest request of one kind; an older answer is not shown."""

    def __init__(self) -> None:
        self.number = 0

    def ask(self) -> int:
        """A new request: the number its answer must bring back to be shown."""
        self.number += 1
        return self.number

    def drop(self) -> None:
        """What the screen shows changed: no answer still on its way is shown."""
        self.number += 1

    def current(self, number: int) -> bool:
        return number == self.number

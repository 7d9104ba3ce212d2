"""Key scrubbing, once, at the CLI boundary.

Every line the CLI writes to stderr (an error, a warning, the bridge's request log, argparse's
complaint) and every crash log passes through :func:`shown`, so a key that reached an exception
message or a warning (typed in the wrong argument, quoted from a settings file) is masked
whatever layer produced it; the layers below raise their own errors with no re-wrap to hide
keys. stdout is left alone: ``key print`` and ``env`` print a key there on purpose.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from typing import TextIO, cast


def shown(text: str) -> str:
    """``text`` as the CLI may show it: URL credentials and key-like words masked, a bidi
    control or other invisible character (a warning quoting a settings value) escaped."""
    from judgeaudit.credentials import scrub  # the one rule of what looks like a key
    from judgeaudit.terminal import visible

    return visible(scrub(text))


class ScrubbedStream(io.TextIOBase):
    """A text stream that masks keys in what is written, then passes it to ``raw``."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(shown(text))
        return len(text)

    def flush(self) -> None:
        self.raw.flush()

    def fileno(self) -> int:
        return self.raw.fileno()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase declares it read-only
        return self.raw.encoding


@contextlib.contextmanager
def scrubbed_stderr() -> Iterator[None]:
    """Route ``sys.stderr`` through :class:`ScrubbedStream` while the command runs."""
    original = sys.stderr
    if isinstance(original, ScrubbedStream):  # main() called again inside a command
        yield
        return
    sys.stderr = cast(TextIO, ScrubbedStream(original))
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        sys.stderr = original

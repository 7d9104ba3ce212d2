"""Server-sent events: encode one event, and split an upstream byte stream into events."""

from __future__ import annotations

import json
from typing import Any


def encode(data: dict[str, Any] | str, event: str | None = None) -> bytes:
    """One SSE event; ``event`` names it (Anthropic and Responses streams name every event)."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


class SSEDecoder:
    """Incremental: feed raw bytes as they arrive, get the ``data`` payload of each whole event.

    Lines may be split across reads and end in ``\\n`` or ``\\r\\n``; comment lines (``:``)
    and fields other than ``data`` are ignored; multi-line data is joined with newlines.
    """

    def __init__(self) -> None:
        self._buffer = b""
        self._data: list[str] = []

    def feed(self, raw: bytes) -> list[str]:
        self._buffer += raw
        out: list[str] = []
        while True:
            cut = self._buffer.find(b"\n")
            if cut < 0:
                return out
            line = self._buffer[:cut].rstrip(b"\r").decode("utf-8", errors="replace")
            self._buffer = self._buffer[cut + 1 :]
            if not line:
                if self._data:
                    out.append("\n".join(self._data))
                    self._data = []
            elif line.startswith("data:"):
                value = line[5:]
                self._data.append(value[1:] if value.startswith(" ") else value)

    def close(self) -> list[str]:
        """What is left when the stream ends without a final blank line."""
        out = self.feed(b"\n\n") if self._buffer or self._data else []
        return out

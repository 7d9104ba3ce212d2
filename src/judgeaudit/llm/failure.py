"""One failed attempt in the client's own terms, whichever transport made it.

The retry loop decides on these alone: each transport (the ``openai`` SDK, or the direct aiohttp
path for local endpoints) translates its own errors into an :class:`AttemptFailed`, so what is
retried, how long to wait and which final error the user sees cannot drift between the two.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

#: HTTP statuses retried, as the SDK classes them: RateLimitError (429), InternalServerError (5xx).
RATE_LIMITED = 429


class AttemptFailed(Exception):
    """``what`` is status | timeout | refused | connection | bad_reply | other; ``detail`` is what the
    provider said (a 400's error message, a stream's error event), never sent unscrubbed."""

    def __init__(
        self,
        what: str,
        *,
        status: int = 0,
        retry_after: float | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(what if not status else f"HTTP {status}")
        self.what = what
        self.status = status
        self.retry_after = retry_after
        self.detail = detail

    @property
    def retryable(self) -> bool:
        if self.what == "status":
            return self.status == RATE_LIMITED or self.status >= 500
        return self.what in ("timeout", "refused", "connection", "bad_reply")

    def describe(self) -> str:
        """The short form that goes into the final error's history (no provider text)."""
        if self.what == "status":
            return f"HTTP {self.status}"
        if self.what == "timeout":
            return "timeout"
        if self.what == "refused":
            return "connection refused"
        if self.what == "connection":
            return "connection error (reset or truncated body)"
        return self.detail


def refused(exc: BaseException) -> bool:
    """Whether a transport error was, underneath, a refused TCP connect (the SDK's aiohttp
    transport reports one as a timeout, aiohttp as a connector error)."""
    seen: BaseException | None = exc
    for _ in range(8):  # the SDK's error, the transport's, aiohttp's, the OS error
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError) or isinstance(
            getattr(seen, "os_error", None), ConnectionRefusedError
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class BadReply(AttemptFailed):
    """The provider answered 200 with no usable choice (empty, truncated or not a completion)."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_reply", detail=message)


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds the provider asked to wait: ``retry-after-ms`` first, then ``retry-after``
    (seconds; an HTTP date or a value that is not a finite, non-negative number is ignored)."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) / scale
        except ValueError:
            return None
        return value if math.isfinite(value) and value >= 0 else None
    return None


def error_message(body: Any, fallback: str) -> str:
    """The provider's own words from an error body (``{"error": {"message": ...}}`` and the
    usual variants), else ``fallback``."""
    if isinstance(body, bytes | str):
        try:
            body = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
            return text.strip() or fallback
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return fallback

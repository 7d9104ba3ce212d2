"""Errors in the caller's own format, with the upstream's status and message.

Codex reads OpenAI-style ``{"error": {...}}`` bodies; Claude Code reads Anthropic's
``{"type": "error", "error": {"type": ..., "message": ...}}``. An upstream error is passed back
with its HTTP status, its message (the key scrubbed out) and its ``Retry-After`` headers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from judgeaudit.credentials import mask_inline_credentials

#: Anthropic error types by HTTP status (https://docs.anthropic.com/en/api/errors).
ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "overloaded_error",
    504: "api_error",
    529: "overloaded_error",
}
OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "invalid_request_error",
    429: "rate_limit_error",
}
#: Headers a client uses to pace its retries; passed back unchanged.
RETRY_HEADERS = ("retry-after", "retry-after-ms", "x-ratelimit-reset-requests")


@dataclass
class BridgeError(Exception):
    """A failure to answer in the caller's format: an upstream error, or one of the bridge's."""

    status: int
    message: str
    kind: str | None = None  # the upstream's error type, when it sent one
    code: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"HTTP {self.status}: {self.message}"


def openai_body(error: BridgeError) -> dict[str, Any]:
    kind = error.kind or OPENAI_TYPES.get(
        error.status, "server_error" if error.status >= 500 else "invalid_request_error"
    )
    return {"error": {"message": error.message, "type": kind, "param": None, "code": error.code}}


def anthropic_body(error: BridgeError) -> dict[str, Any]:
    kind = ANTHROPIC_TYPES.get(error.status)
    if kind is None:
        kind = "api_error" if error.status >= 500 else "invalid_request_error"
    return {"type": "error", "error": {"type": kind, "message": error.message}}


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[key]")
    return mask_inline_credentials(text)  # and any user:password@ an upstream echoed back


def from_upstream(
    status: int, raw: bytes, headers: dict[str, str], secrets: tuple[str, ...]
) -> BridgeError:
    """Read an upstream error body whatever its shape (OpenAI JSON, a bare string, HTML)."""
    message, kind, code = "", None, None
    try:
        body: Any = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        body = None
    inner = body.get("error") if isinstance(body, dict) else None
    if isinstance(inner, dict):
        message = str(inner.get("message") or "")
        kind = inner.get("type") if isinstance(inner.get("type"), str) else None
        code = str(inner["code"]) if inner.get("code") not in (None, "") else None
    elif isinstance(inner, str):
        message = inner
    elif isinstance(body, dict) and isinstance(body.get("message"), str):
        message = body["message"]
    if not message:
        text = raw.decode("utf-8", errors="replace").strip()
        message = " ".join(text.split())[:300] or "no error message"
    kept = {k: v for k, v in headers.items() if k.lower() in RETRY_HEADERS}
    message = scrub(f"upstream HTTP {status}: {message}"[:1000], secrets)
    return BridgeError(status, message, kind, code, kept)

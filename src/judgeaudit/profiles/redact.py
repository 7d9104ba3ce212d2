"""Keeping key material out of every message: find secret-looking values and mask them.

Diff previews, import reports and error lines pass through :func:`redact`, so a key in a
settings file (a leftover token, an inline key being switched away from) is never printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

SECRET_NAME_RE = re.compile(r"(token|api_?key|apikey|secret|password|bearer|authorization)", re.I)
MIN_SECRET_LEN = 6


def mask(secret: str) -> str:
    return "…" + secret[-4:] if len(secret) > 8 else "…"


def secret_values(data: Any, *, under_secret_name: bool = False) -> set[str]:
    """Every string stored under a key whose name looks like a credential, at any depth."""
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            name = str(key)
            looks_secret = bool(SECRET_NAME_RE.search(name)) and not name.endswith("Helper")
            found |= secret_values(value, under_secret_name=looks_secret)
    elif isinstance(data, list):
        for item in data:
            found |= secret_values(item, under_secret_name=under_secret_name)
    elif isinstance(data, str) and under_secret_name and len(data) >= MIN_SECRET_LEN:
        found.add(data)
    return found


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every given secret (longest first) replaced by its masked form."""
    for secret in sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, mask(secret))
    return text

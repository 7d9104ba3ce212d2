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
#: How provider keys commonly start (OpenAI/Anthropic/DeepSeek/TaoToken ``sk-``, Groq, xAI, ...).
KEY_PREFIXES = ("sk-", "sk_", "gsk_", "xai-", "ghp_", "github_pat_", "glpat-", "aiza")
RANDOM_RUN_RE = re.compile(r"[A-Za-z0-9]{20,}")
TOKEN_RE = re.compile(r"[^\s'\"`=:,()\[\]{}]+")


def mask(secret: str) -> str:
    return "…" + secret[-4:] if len(secret) > 8 else "…"


def looks_like_key(text: str) -> bool:
    """Whether ``text`` is probably an API key (a known key prefix, or a long random-looking run
    of letters and digits): such a value is never echoed back, wherever it was typed."""
    text = text.strip()
    if len(text) >= 8 and text.lower().startswith(KEY_PREFIXES):
        return True
    return any(
        any(c.isdigit() for c in run) and any(c.isalpha() for c in run)
        for run in RANDOM_RUN_RE.findall(text)
    )


def keylike_words(text: str) -> set[str]:
    """The words of ``text`` that look like a key (paths are left alone: a helper script's path
    is not a secret)."""
    found = set()
    for word in TOKEN_RE.findall(text):
        long_mixed = len(word) >= 32 and any(c.isdigit() for c in word)
        if "/" not in word and (looks_like_key(word) or long_mixed):
            found.add(word)
    return found


def scrub_keylike(text: str) -> str:
    """``text`` with every word that looks like a key masked."""
    words = keylike_words(text)
    return TOKEN_RE.sub(lambda m: mask(m.group(0)) if m.group(0) in words else m.group(0), text)


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

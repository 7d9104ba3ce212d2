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


#: A secret shorter than this shows nothing of itself when masked: its last four characters
#: would be a quarter of it or more (doctor showed 40% of a 10-character token).
SHOWN_FROM = 16


def mask(secret: str) -> str:
    """``secret`` as every line shows it: ``…`` and its last four characters, or ``…`` alone
    below :data:`SHOWN_FROM` characters. The one masking rule; the keyring's, the switch
    ledger's and the scrubbers' all call it."""
    return "…" + secret[-4:] if len(secret) >= SHOWN_FROM else "…"


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
        # a dotted field path (`initial_state.catalog.SKU-103.price`) is a name, not a key; a
        # dotted token (a JWT) is caught by mask_key_shapes' own rule
        long_mixed = len(word) >= 32 and "." not in word and any(c.isdigit() for c in word)
        if "/" not in word and (looks_like_key(word) or long_mixed):
            found.add(word)
    return found


def scrub_keylike(text: str) -> str:
    """``text`` with every word that looks like a key masked."""
    words = keylike_words(text)
    return TOKEN_RE.sub(lambda m: mask(m.group(0)) if m.group(0) in words else m.group(0), text)


#: A word that may be a key (any shape below is at least 11 characters long).
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{10,}")
#: Key shapes that may appear inside any text (a conversation quoting a key, a tool result, a
#: provider's error): the known providers' prefixes, a JWT, an AWS access key id, Google's
#: ``AIza``, and a long random run mixing upper case, lower case and digits. Hex digests, ids
#: with dashes and ordinary words do not match, so content stays readable.
KEY_SHAPE_RE = re.compile(
    r"(?:sk|gsk|xai|ghp|gho|ghs|ghu|github_pat|glpat|hf|pplx|nvapi|r8|fw)[-_][A-Za-z0-9][A-Za-z0-9_.-]{7,}"
    r"|AIza[A-Za-z0-9_-]{20,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"
)
_RUN_RE = re.compile(r"[A-Za-z0-9]{32,}")
#: ``Bearer X`` / ``Authorization: X`` / ``api_key=X`` / ``x-api-key: X``: X is masked when it
#: holds a digit or is 20+ characters (so "the bearer of news" stays).
LABELLED_RE = re.compile(
    r"(?i)(\bbearer\s+|\b(?:authorization|x-api-key|api[_-]?key)[\"']?\s*[:=]\s*[\"']?"
    r"(?:bearer\s+)?)([A-Za-z0-9._~+/=-]{8,})"
)


def _labelled(match: re.Match[str]) -> str:
    value = match.group(2)
    letters = any(c.isalpha() for c in value)  # never a bare number (a JSON value stays valid)
    if letters and (any(c.isdigit() for c in value) or len(value) >= 20):
        return match.group(1) + mask(value)
    return match.group(0)


def _random_run(word: str) -> bool:
    return any(
        any(c.isupper() for c in run)
        and any(c.islower() for c in run)
        and any(c.isdigit() for c in run)
        for run in _RUN_RE.findall(word)
    )


def is_key_shaped(word: str) -> bool:
    """Whether one word has a key's shape (see :data:`KEY_SHAPE_RE`)."""
    word = word.rstrip("._-")
    return bool(KEY_SHAPE_RE.fullmatch(word)) or _random_run(word)


#: words already found not key-shaped (field names, model names, ids repeat on every row of an
#: export): the shape test was most of the scrubber's CPU there. Only plain words are kept, never
#: a key-shaped one, and at most PLAIN_KEPT of them.
_PLAIN: set[str] = set()
PLAIN_KEPT = 100_000


def mask_key_shapes(text: str) -> str:
    """``text`` with every key-shaped word masked: the one rule for content bound for a log, a
    database, a report or an export. A word right after a JSON escape (``\\n``, ``\\u201c``)
    is looked at without the escape's letters, so stored JSON text is covered too."""

    def one(match: re.Match[str]) -> str:
        word, start = match.group(0), match.start()
        keep = ""
        if start and match.string[start - 1] == "\\":  # the text being scanned, not the input
            cut = 5 if word[0] == "u" and re.match(r"u[0-9a-fA-F]{4}", word) else 1
            keep, word = word[:cut], word[cut:]
        if word in _PLAIN:
            return match.group(0)
        if not is_key_shaped(word):
            if len(_PLAIN) < PLAIN_KEPT:
                _PLAIN.add(word)
            return match.group(0)
        tail = word[len(word.rstrip("._-")) :]
        return keep + mask(word[: len(word) - len(tail)]) + tail

    if not text:
        return text
    if may_be_labelled(text):
        text = LABELLED_RE.sub(_labelled, text)
    return _WORD_RE.sub(one, text)


def may_be_labelled(text: str) -> bool:
    """Whether :data:`LABELLED_RE` could match: its literal words, tested as substrings (about
    twenty times cheaper than the case-blind regex, which most content never matches). The
    dotless ``ı`` is the one character ``re.IGNORECASE`` matches to a label letter that
    ``str.lower`` does not turn into it."""
    low = text.lower()
    return "bearer" in low or "authori" in low or "api" in low or "ı" in text


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


#: A header name that says it carries a credential (``Authorization``, ``x-gateway-key``, ...).
CREDENTIAL_NAME_RE = re.compile(r"auth|key|token|secret|passw|cookie|session|bearer", re.I)


def is_credential_header(name: str, value: str) -> bool:
    """A header carrying a credential: its name says so, or a word of its value has a key's
    shape. One rule for the switch (a key in ``ANTHROPIC_CUSTOM_HEADERS`` is a leftover token)
    and the simulator's request log (which fingerprints such headers), so a contract test sees
    every header the switch would have moved; ``anthropic-beta: ...`` is none."""
    return bool(CREDENTIAL_NAME_RE.search(name)) or any(
        looks_like_key(w) or is_key_shaped(w) for w in TOKEN_RE.findall(value)
    )

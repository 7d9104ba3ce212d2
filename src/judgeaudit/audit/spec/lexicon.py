"""The marker lexicons the trajectory features read (English and Chinese, shipped as package
data in ``judgeaudit/data/lexicons``), and the extension file a spec may name.

The lexicon belongs to the spec room because a spec names the extension (``[run] lexicon``)
and a bad file must be refused when the spec is read, not when a report is drawn. The manifest
keeps the extension's content, so a report reads the same markers the run declared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit.errors import InputError
from judgeaudit.validate import read_toml

LEXICON_DIR = Path(__file__).resolve().parents[2] / "data" / "lexicons"
BUILTIN = ("en", "zh")
#: Each key is a list of strings: phrases, except ``ids`` (regular expressions).
KEYS = ("claim", "failure", "courtesy", "confirm", "ids")


class LexiconError(InputError):
    """A lexicon file that cannot be used; the message names the file and key."""


@dataclass(frozen=True)
class Lexicon:
    """Lower-cased phrases per marker kind, and the compiled id patterns."""

    claim: tuple[str, ...]
    failure: tuple[str, ...]
    courtesy: tuple[str, ...]
    confirm: tuple[str, ...]
    ids: tuple[re.Pattern[str], ...]


def check_extension(data: dict[str, Any], where: str) -> dict[str, list[str]]:
    """The extension's lists, refused in one line when a key or value is not usable."""
    out: dict[str, list[str]] = {}
    for key, value in data.items():
        if key not in KEYS:
            raise LexiconError(f"{where}: unknown key {key!r}; use {', '.join(KEYS)}")
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise LexiconError(f"{where}: {key}: must be a list of non-empty strings")
        if key == "ids":
            for pattern in value:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise LexiconError(
                        f"{where}: ids: {pattern!r} is not a regular expression ({exc})"
                    ) from None
        out[key] = list(value)
    return out


def read_extension(path: Path) -> dict[str, list[str]]:
    """A spec's ``[run] lexicon`` file: the same keys as the built-in ones, added to them."""
    return check_extension(read_toml(path, "lexicon", LexiconError), str(path))


def _builtin(name: str) -> dict[str, list[str]]:
    return check_extension(read_toml(LEXICON_DIR / f"{name}.toml", "lexicon"), name)


def lexicon(extension: dict[str, list[str]] | None = None) -> Lexicon:
    """English and Chinese markers together (a transcript may mix them), plus ``extension``."""
    merged: dict[str, list[str]] = {key: [] for key in KEYS}
    for part in [*(_builtin(name) for name in BUILTIN), extension or {}]:
        for key, values in part.items():
            merged[key] += [v for v in values if v not in merged[key]]
    phrases = {k: tuple(v.lower() for v in merged[k]) for k in KEYS if k != "ids"}
    return Lexicon(ids=tuple(re.compile(p) for p in merged["ids"]), **phrases)

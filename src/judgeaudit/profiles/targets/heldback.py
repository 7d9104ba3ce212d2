"""A credential goes back only beside the base URL it was saved with.

``profile off`` puts back the token (and custom-header credential lines) a switch took out of
Claude Code's ``settings.json``. If the user changed ``ANTHROPIC_BASE_URL`` by hand while
switched, their new URL stays, so the old provider's token would go to it: ``off`` holds those
values back instead. They stay in the ledger (their keyring entries stay too) and come back
with a later ``off`` once the base URL is the one they were saved with again, or by
``profile restore`` of the backup taken before the first switch.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from judgeaudit.credentials import scrub
from judgeaudit.profiles.ledger import Entry, fingerprint

BASE_URL = "env.ANTHROPIC_BASE_URL"
#: The ledger field holding the base URL (JSON text, None: unset) a credential was saved with.
SAVED_WITH = "url"


def _value(raw: str | None) -> Any:
    return None if raw is None else json.loads(raw)


def user_base(ledger: dict[str, Entry], current: str | None) -> str | None:
    """The user's base URL (JSON text) as it stands once judgeaudit is off: their value kept in
    the ledger, or their hand edit made while switched, or the file's own when not ours."""
    entry = ledger.get(BASE_URL)
    if entry is None:
        return current
    if current is not None and "wrote" in entry and entry["wrote"] != fingerprint(current):
        return current  # edited by hand while switched: theirs, and it stays
    return str(entry["raw"]) if entry.get("had") and "raw" in entry else None


def note_saved_with(
    ledger: dict[str, Entry], credentials: tuple[str, ...], current: str | None
) -> None:
    """Record, on each user credential the ledger keeps, the base URL it was saved with."""
    base = user_base(ledger, current)
    for dotted in credentials:
        entry = ledger.get(dotted)
        if entry and entry.get("had") and SAVED_WITH not in entry:
            entry[SAVED_WITH] = base


def hold(
    ledger: dict[str, Entry], credentials: tuple[str, ...], current: str | None
) -> tuple[dict[str, Entry], dict[str, Entry], str | None]:
    """Split ``ledger`` for ``off``: what to reconcile, the credentials held back, and the base
    URL they would have gone to. A credential judgeaudit wrote over (an inline key) is still
    removed; the user's own value behind it is held."""
    after = user_base(ledger, current)
    given = dict(ledger)
    held: dict[str, Entry] = {}
    for dotted in credentials:
        entry = ledger.get(dotted)
        if not entry or not entry.get("had"):
            continue
        if SAVED_WITH in entry:
            saved = entry[SAVED_WITH]
        elif BASE_URL in ledger:  # a ledger from before: the user's URL it keeps
            saved = user_base({BASE_URL: ledger[BASE_URL]}, None)
        else:
            continue
        if _value(saved) == _value(after):
            continue
        held[dotted] = {**entry, SAVED_WITH: saved}
        if entry.get("removed"):
            del given[dotted]  # out of the file (or only its other lines live): left as it is
        else:
            given[dotted] = {k: v for k, v in entry.items() if k not in ("ref", "raw")}
            given[dotted]["had"] = False  # ours is live: removed, theirs not put back
    return given, held, after


def keep(ledger: dict[str, Entry], held: dict[str, Entry]) -> None:
    """Put the held credentials back into the ledger ``off`` leaves, as values kept out."""
    for dotted, entry in held.items():
        kept = dict(entry)
        kept["removed"] = True
        kept.pop("wrote", None)
        ledger[dotted] = kept


class Reconciled(Protocol):
    ledger: dict[str, Entry]
    notes: list[str]


def settle(
    outcome: Reconciled,
    held: dict[str, Entry],
    after: str | None,
    credentials: tuple[str, ...],
    base_live: str | None,
    switching: bool,
) -> None:
    """After the reconcile: ``off`` keeps what it held back and says so in one note; a switch
    records, on each credential it keeps, the base URL it was saved with (``base_live``)."""
    if held:
        keep(outcome.ledger, held)
        outcome.notes.append(said(held, after))
    elif switching:
        note_saved_with(outcome.ledger, credentials, base_live)


def _url_shown(url: str) -> str:
    """A base URL as the note prints it: a key it may carry (``user:password@``, a key-shaped
    word) masked, and its query, where a token may sit in any shape, left out (``?…``)."""
    head, query, _ = url.partition("?")
    return scrub(head) + ("?…" if query else "")


def said(held: dict[str, Entry], after: str | None) -> str:
    """The one line ``off`` says about what it held back, why, and how to get it."""
    names = ", ".join(held)
    was = {_value(e[SAVED_WITH]) for e in held.values()}
    was_said = " / ".join(sorted(_url_shown(str(u)) for u in was if u is not None)) or "unset"
    now = _url_shown(str(_value(after))) if after is not None else "unset"
    return (
        f"holds back your {names}: saved with ANTHROPIC_BASE_URL {was_said}, which you changed "
        f"to {now} while switched, so they would go to another server; kept (set "
        "ANTHROPIC_BASE_URL back and run `judgeaudit profile off claude` again, or "
        "`judgeaudit profile restore ID` a backup from `judgeaudit profile backups`)"
    )

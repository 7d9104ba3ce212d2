"""What judgeaudit owns in a live file, and the user's values it replaced or removed.

A switch *reconciles* a file with what a profile wants. Every key judgeaudit writes gets a ledger
entry holding the value that was there before (or "absent"); a key it no longer sets gets that
value back instead of being deleted; a conflicting key (a leftover token that would shadow the
switch) is removed and kept the same way. ``profile off`` is a reconcile with nothing wanted, so
the file returns to the user's own. Replaced secrets are kept in the keyring, never in the
ledger, which lives in ``state.json``.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from judgeaudit.profiles.model import ProfileError
from judgeaudit.redact import mask, scrub_keylike

Entry = dict[str, Any]  # had, raw | ref, index, wrote, removed, seq, container
#: Not a key but facts about the file judgeaudit must give back at ``off``: its mode before an
#: inline key made it 0600, its exact text when it was blank. Reconciling leaves it alone.
FILE_FACTS = "#file"


class Editable(Protocol):
    """One live document, addressed by dotted keys."""

    def current_raw(self, dotted: str) -> str | None: ...

    def put_raw(self, dotted: str, raw: str, index: int | None = None) -> None: ...

    def remove(self, dotted: str) -> None: ...

    def index_of(self, dotted: str) -> int | None: ...

    def siblings(self, dotted: str) -> list[str]: ...  # in file order; [] if order is not kept

    def ensure_container(self, dotted: str) -> bool: ...  # True when it had to be created

    def container_empty(self, dotted: str) -> bool: ...


@dataclass
class Outcome:
    ledger: dict[str, Entry]
    notes: list[str] = field(default_factory=list)  # for the diff preview; never a secret
    save_secrets: dict[str, str] = field(default_factory=dict)  # keyring entry -> raw text
    dropped_secrets: list[str] = field(default_factory=list)


def fingerprint(raw: str) -> str:
    """A short hash of what we wrote, to notice later hand edits (never the value itself)."""
    return hashlib.sha256(b"judgeaudit-ledger\0" + raw.encode("utf-8")).hexdigest()[:20]


def secret_ref(file_id: str, dotted: str, raw: str) -> str:
    digest = hashlib.sha256(f"{file_id}\0{dotted}\0{raw}".encode()).hexdigest()[:16]
    return f"saved-{digest}"


#: The keyring names :func:`secret_ref` gives: a user's value a switch holds back (any config's).
SECRET_REF = re.compile(r"saved-[0-9a-f]{16}")


@dataclass(frozen=True)
class Split:
    """A conflict only some of whose value overrides a switch (custom headers holding a
    credential among other lines): ``leave`` gives the JSON text that stays live (None: the
    value goes whole), ``rejoin`` puts what was taken out back into the user's edit of what
    stayed (None: they removed it), ``said`` names what moves for the preview (no secret)."""

    leave: Callable[[str], str | None]
    rejoin: Callable[[str, str | None], str]
    said: Callable[[str], str]


def _parent(dotted: str) -> str | None:
    return dotted.rsplit(".", 1)[0] if "." in dotted else None


@dataclass
class Reconciler:
    doc: Editable
    file_id: str
    secret_keys: frozenset[str]
    load_secret: Callable[[str], str | None]
    containers: frozenset[str] = frozenset()
    #: Secret keys whose value is a command (``apiKeyHelper``): kept in the keyring like a key
    #: (it may embed one) but shown with only its key-like words masked, so a path stays legible.
    commands: frozenset[str] = frozenset()
    #: Conflicts of which only a part is taken out (the entry's ``left``: a fingerprint of
    #: what stayed live); ``off`` gives the whole value back.
    splits: dict[str, Split] = field(default_factory=dict)
    #: Values of the user's kept out of this reconcile (``off`` holding back a credential):
    #: not touched, but their places still count where other values go back in.
    held: dict[str, Entry] = field(default_factory=dict)

    def _shown(self, dotted: str, raw: str, entry: Entry) -> str:
        if "ref" not in entry:
            return raw
        return scrub_keylike(raw) if dotted in self.commands else mask(raw.strip('"'))

    def _said(self, dotted: str, raw: str, entry: Entry) -> str:
        """``KEY = VALUE`` for a note. A TOML document's raw text of a root key is its whole
        statement (``model = "o3"   # mine``), said as it is, not after the key once more."""
        shown = self._shown(dotted, raw, entry)
        if "ref" not in entry and re.match(rf"\s*[\"']?{re.escape(dotted)}[\"']?\s*=", raw):
            return shown.strip()
        return f"{dotted} = {shown}"

    def _order(self, dotted: str, ledger: dict[str, Entry]) -> list[str]:
        """``dotted``'s container as the user's file had it: the keys there now, with every
        value judgeaudit took out (or keeps for ``off``) back at its own place."""
        names = self.doc.siblings(dotted)
        parent = _parent(dotted)
        taken = sorted(
            (int(e["index"]), d)
            for d, e in {**ledger, **self.held}.items()
            if e.get("had") and isinstance(e.get("index"), int) and _parent(d) == parent
            if d not in names
        )
        for index, name in taken:
            names.insert(min(index, len(names)), name)
        return names

    def _place(self, dotted: str, ledger: dict[str, Entry]) -> int | None:
        """Where a value of the user's goes back in: after the keys that were before it (index
        of the live container; None: at the end, or the document keeps no order)."""
        order = self._order(dotted, ledger)
        if dotted not in order:
            return None
        live = set(self.doc.siblings(dotted))
        return sum(1 for name in order[: order.index(dotted)] if name in live)

    def _capture(self, dotted: str, seq: int, ledger: dict[str, Entry]) -> tuple[Entry, str | None]:
        raw = self.doc.current_raw(dotted)
        index = self.doc.index_of(dotted)
        if raw is not None and self.doc.siblings(dotted):  # its place in the user's own order
            index = self._order(dotted, ledger).index(dotted)
        entry: Entry = {"had": raw is not None, "index": index, "seq": seq}
        secret = None
        if raw is not None:
            if dotted in self.secret_keys:
                entry["ref"] = secret_ref(self.file_id, dotted, raw)
                secret = raw
            else:
                entry["raw"] = raw
        return entry, secret

    def _user_raw(self, dotted: str, entry: Entry) -> str | None:
        if not entry.get("had"):
            return None
        if "ref" in entry:
            raw = self.load_secret(entry["ref"])
            if raw is None:
                raise ProfileError(
                    f"{self.file_id}: your earlier {dotted} was kept in the keyring as "
                    f"{entry['ref']!r}, which is gone; restore a backup (`judgeaudit profile "
                    "backups`) or edit the file by hand"
                )
            return raw
        value: str = entry["raw"]
        return value

    def _put_back(self, dotted: str, entry: Entry, out: Outcome, ledger: dict[str, Entry]) -> None:
        raw = self._user_raw(dotted, entry)
        if raw is None:
            self.doc.remove(dotted)
        else:
            parent = _parent(dotted)
            if parent in self.containers:
                self.doc.ensure_container(parent)
            self.doc.put_raw(dotted, raw, self._place(dotted, ledger))
        if "ref" in entry:
            out.dropped_secrets.append(entry["ref"])

    def _rejoin(
        self,
        dotted: str,
        entry: Entry,
        current: str | None,
        out: Outcome,
        ledger: dict[str, Entry],
    ) -> None:
        """The user edited what a split left live: their edit stays, and what was taken out
        goes back into it (a switch that still conflicts takes it out again)."""
        original = self._user_raw(dotted, entry)
        split = self.splits.get(dotted)
        if original is None or split is None:
            return
        parent = _parent(dotted)
        if parent in self.containers:
            self.doc.ensure_container(parent)
        self.doc.put_raw(dotted, split.rejoin(original, current), self._place(dotted, ledger))
        out.dropped_secrets.append(entry["ref"])
        out.notes.append(
            f"keeps your edit of {dotted} made while switched, with the credential lines "
            "judgeaudit took out put back in front of your lines"
        )

    def _note_replaced(self, dotted: str, entry: Entry, raw: str, out: Outcome) -> None:
        """Tell the preview that a user's value is replaced (and kept)."""
        current = self.doc.current_raw(dotted) if entry["had"] else None
        if entry["had"] and current != raw:
            said = self._said(dotted, current or "", entry)
            out.notes.append(
                f"replaces your value {said}, kept (put back when no "
                "profile sets it, or by `judgeaudit profile off`)"
            )

    def reconcile(
        self, want: dict[str, str], ledger: dict[str, Entry], conflicts: list[str]
    ) -> Outcome:
        """Make the document hold ``want``; remove ``conflicts`` (keys someone else wrote)."""
        ledger = copy.deepcopy(ledger)
        out = Outcome(ledger)
        seq = max((e.get("seq", 0) for e in ledger.values()), default=0)
        hand_edited: set[str] = set()
        # A value we wrote that the user changed by hand since is theirs now.
        for dotted, entry in list(ledger.items()):
            if entry.get("container") or dotted == FILE_FACTS:
                continue
            current = self.doc.current_raw(dotted)
            if entry.get("removed") and "left" in entry:
                if current is None or fingerprint(current) != entry["left"]:
                    self._rejoin(dotted, entry, current, out, ledger)
                    del ledger[dotted]
                continue
            if entry.get("removed"):
                if current is not None:  # they put the key back themselves: forget ours
                    del ledger[dotted]
                continue
            if "wrote" not in entry:  # from before ledgers kept fingerprints: ours as it is
                if current is None:
                    del ledger[dotted]
                else:
                    entry["wrote"] = fingerprint(current)
                continue
            if current is not None and entry["wrote"] != fingerprint(current):
                seq += 1
                fresh, secret = self._capture(dotted, seq, ledger)
                ledger[dotted] = fresh
                hand_edited.add(dotted)
                if secret is not None:
                    out.save_secrets[fresh["ref"]] = secret
        # Keys no profile sets any more get the user's value back (restored in reverse order).
        for dotted in sorted(
            (
                d
                for d, e in ledger.items()
                if not e.get("container") and d not in want and d != FILE_FACTS
            ),
            key=lambda d: -int(ledger[d].get("seq", 0)),
        ):
            entry = ledger[dotted]
            if entry.get("removed") and dotted in conflicts:
                continue  # still shadowing: stays removed
            if dotted in conflicts and entry.get("had"):
                # The user's value would shadow this switch: it stays kept, not put back (and
                # keeps its first place and order, so `off` restores the file byte for byte).
                self.doc.remove(dotted)
                entry["removed"] = True
                entry.pop("wrote", None)
                said = self._said(dotted, str(entry.get("raw", "")), entry)
                out.notes.append(
                    f"keeps your value {said} out (it would override this switch); "
                    "`judgeaudit profile off` puts it back"
                )
                continue
            self._put_back(dotted, entry, out, ledger)
            del ledger[dotted]
        for dotted, raw in want.items():
            parent = _parent(dotted)
            if parent in self.containers and self.doc.ensure_container(parent):
                ledger.setdefault(parent, {"container": True})
            existing = ledger.get(dotted)
            if existing is None or existing.get("removed"):
                if existing is None:
                    seq += 1
                    entry, secret = self._capture(dotted, seq, ledger)
                    if secret is not None:
                        out.save_secrets[entry["ref"]] = secret
                else:
                    entry = existing
                entry["removed"] = False
                self._note_replaced(dotted, entry, raw, out)
                ledger[dotted] = entry
            else:
                entry = existing
                if dotted in hand_edited:  # edited by hand since our switch: theirs, like any
                    self._note_replaced(dotted, entry, raw, out)
            absent = self.doc.current_raw(dotted) is None  # a value of theirs kept out: its place
            self.doc.put_raw(dotted, raw, self._place(dotted, ledger) if absent else None)
            entry["wrote"] = fingerprint(raw)
        for dotted in conflicts:
            current = self.doc.current_raw(dotted)
            if dotted in want or current is None or dotted in ledger:
                continue
            seq += 1
            entry, secret = self._capture(dotted, seq, ledger)
            entry["removed"] = True
            if secret is not None:
                out.save_secrets[entry["ref"]] = secret
            ledger[dotted] = entry
            split = self.splits.get(dotted)
            left = split.leave(current) if split is not None else None
            if split is not None and left is not None:
                self.doc.put_raw(dotted, left)
                entry["left"] = fingerprint(left)
                out.notes.append(
                    f"moves the {split.said(current)} header out of {dotted} (a credential, "
                    "it would go to this profile's gateway), kept for `judgeaudit profile "
                    "off`; its other lines stay; --keep-conflicts leaves it"
                )
                continue
            self.doc.remove(dotted)
            out.notes.append(
                f"removes {self._said(dotted, current, entry)} (written by someone else, it would override "
                "this switch), kept for `judgeaudit profile off`; --keep-conflicts leaves it"
            )
        for dotted in [d for d, e in ledger.items() if e.get("container")]:
            inside = [d for d in ledger if d.startswith(dotted + ".")]
            if not inside and self.doc.container_empty(dotted):
                self.doc.remove(dotted)
                del ledger[dotted]
            elif not inside:
                del ledger[dotted]  # the user added keys to it: it is theirs now
        return out


def referenced_secrets(ledgers: list[dict[str, Entry]]) -> set[str]:
    return {e["ref"] for ledger in ledgers for e in ledger.values() if "ref" in e}

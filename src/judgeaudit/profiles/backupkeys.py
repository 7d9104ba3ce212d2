"""Taking a backup without the keys in it, and putting them back on restore.

A backup of ``settings.json`` never holds a token: the inline key judgeaudit wrote becomes a
marker naming its keyring entry, and any other ``ANTHROPIC_AUTH_TOKEN`` / ``ANTHROPIC_API_KEY``
(a leftover token a switch removes), each credential line of ``ANTHROPIC_CUSTOM_HEADERS`` (its
other lines stay readable in the backup), or an ``apiKeyHelper`` command with a key in it, is
kept in the keyring as a ``saved-…`` entry, the way a replaced value is, and becomes a marker
naming that entry. Restore reads the markers back from the keyring, or refuses before anything is
written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judgeaudit.profiles import active as active_here
from judgeaudit.profiles import backups, secrets
from judgeaudit.profiles.jsonedit import dump_value
from judgeaudit.profiles.ledger import Entry, fingerprint, referenced_secrets, secret_ref
from judgeaudit.profiles.livefile import mode_of
from judgeaudit.profiles.model import ProfileError
from judgeaudit.profiles.store import ProfileStore, SwitchState
from judgeaudit.profiles.targets import claude, customheaders
from judgeaudit.redact import keylike_words

Marker = dict[str, Any]  # path, key (the keyring entry), raw (True: it holds the JSON text)


def strip_keys(
    path: Path, content: bytes, ledger: dict[str, Entry]
) -> tuple[bytes, list[Marker], dict[str, str]]:
    """``content`` with every token swapped for a marker; the markers; the ``saved-…`` entries
    to keep (keyring entry -> the token's JSON text)."""
    doc = claude.parse(path, content)
    view = claude.SettingsDoc(doc)
    markers: list[Marker] = []
    to_save: dict[str, str] = {}
    for dotted in (*claude.TOKEN_PATHS, claude.HEADERS_PATH, *claude.COMMAND_KEYS):
        raw = view.current_raw(dotted)
        if raw is None or (dotted in claude.COMMAND_KEYS and not _holds_key(raw)):
            continue
        if dotted == claude.HEADERS_PATH:
            masked = _mask_headers(str(path), raw, markers, to_save)
            if masked != raw:
                view.put_raw(dotted, masked)
            continue
        entry = ledger.get(dotted) or {}
        if entry.get("keyname") and entry.get("wrote") == fingerprint(raw):
            markers.append({"path": dotted, "key": entry["keyname"]})  # our inline key
        else:  # someone else's token (a CC Switch leftover): the keyring keeps it
            ref = secret_ref(str(path), dotted, raw)
            to_save[ref] = raw
            markers.append({"path": dotted, "key": ref, "raw": True})
        view.put_raw(dotted, dump_value(backups.REDACTED_MARK + markers[-1]["key"]))
    return doc.text.encode("utf-8"), markers, to_save


def _mask_headers(file_id: str, raw: str, markers: list[Marker], to_save: dict[str, str]) -> str:
    """Custom headers (JSON text) with each credential line's value swapped for a marker naming
    the ``saved-…`` entry that keeps the line (its ``line``: the masked line's JSON text); the
    other lines stay readable, so the backup shows them as they were."""

    def mark(line_raw: str) -> str:
        ref = secret_ref(file_id, claude.HEADERS_PATH, line_raw)
        to_save[ref] = line_raw
        return backups.REDACTED_MARK + ref

    masked, originals = customheaders.mask_credentials(raw, mark)
    for line_masked, line_raw in originals.items():
        ref = secret_ref(file_id, claude.HEADERS_PATH, line_raw)
        markers.append({"path": claude.HEADERS_PATH, "key": ref, "raw": True, "line": line_masked})
    return masked


def _holds_key(raw: str) -> bool:
    """Whether a helper command (JSON text) has a key in it (``echo sk-...``): then the backup
    keeps it in the keyring too; a plain script path stays readable in the backup."""
    try:
        value = json.loads(raw)
    except ValueError:
        return True
    return not isinstance(value, str) or bool(keylike_words(value))


def put_keys_back(found: backups.Backup, content: bytes) -> bytes:
    """The backup's bytes with its markers replaced by the keys from the keyring."""
    if not found.redacted:
        return content
    target = Path(found.original)
    # named by the backup's own file: a fault in it (a duplicate key kept from before such
    # files were refused) is the backup's, not the live file's, which may be fixed already
    doc = claude.parse(found.path, content)
    view = claude.SettingsDoc(doc)
    lines: dict[str, dict[str, str]] = {}  # path -> masked line -> the line from the keyring
    for marker in found.redacted:
        name = str(marker.get("key", ""))
        value = secrets.get_key(name)
        if not value:
            what = "a token it removed" if marker.get("raw") else "the inline key"
            if "line" in marker:
                what = "a credential line of its custom headers"
            fix = "" if marker.get("raw") else f"`judgeaudit key set {name}` first, "
            raise ProfileError(
                f"backup {found.id}: {what} of {target} was kept in keyring entry {name!r}, "
                f"which is gone; {fix}nothing was changed"
            )
        if "line" in marker:  # one credential line of custom headers
            lines.setdefault(str(marker["path"]), {})[str(marker["line"])] = value
            continue
        view.put_raw(str(marker["path"]), value if marker.get("raw") else dump_value(value))
    for dotted, originals in lines.items():
        masked = view.current_raw(dotted)
        if masked is not None:
            view.put_raw(dotted, customheaders.unmask(masked, originals))
    return doc.text.encode("utf-8")


def take(
    store: ProfileStore,
    state: SwitchState,
    app: str,
    path: Path,
    before: bytes | None,
    label: str,
    txn: str,
    project_dir: Path | None = None,
) -> str:
    """Back up ``path`` as it is (``before``; None: a record that it does not exist) with the
    ownership state of ``state``, keys swapped for markers; return the backup id. For a
    project's file (``project_dir``) the profile kept is the one bound in that project, so a
    restore gives the binding back and leaves the global profile alone."""
    key = str(path)
    ledger = state["owned"].get(key, {})
    content, markers = before or b"", list[Marker]()
    if before is not None and app == "claude":
        content, markers, to_save = strip_keys(path, before, ledger)
        for ref, raw in to_save.items():
            secrets.set_saved(ref, raw)
            if ref not in state.setdefault("saved", []):
                state["saved"].append(ref)
    return backups.save(
        store,
        app,
        path,
        content,
        label,
        ledger=ledger,
        created=key in state["created"],
        active=(
            state.get("projects", {}).get(str(project_dir), {}).get(app)
            if project_dir is not None
            else active_here.here(state).get(app)
        ),
        redacted=markers,
        txn=txn,
        mode=mode_of(path),
        absent=before is None,
        project=str(project_dir) if project_dir is not None else None,
    )


def forget_unreferenced_secrets(store: ProfileStore, state: SwitchState) -> None:
    """Delete kept user values that no ledger and no remaining backup can put back any more,
    so the keyring does not fill up with ``saved-…`` entries over hundreds of switches."""
    saved: list[str] = state.get("saved", [])
    if not saved:
        return
    kept = backups.list_backups(store)
    live = referenced_secrets([*state["owned"].values(), *(b.ledger for b in kept if b.ledger)])
    live |= {str(m.get("key")) for b in kept for m in b.redacted if m.get("raw")}
    gone = [ref for ref in saved if ref not in live]
    if not gone:
        return
    for ref in gone:
        secrets.delete_saved(ref)
    state["saved"] = [ref for ref in saved if ref in live]
    store.save_state(state)

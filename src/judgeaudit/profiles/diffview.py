"""What a switch shows before it writes: each file's unified diff and its notes (what it
removes, replaces, moves or holds back), with every key masked; and a whole file (a backup)
masked the same way. :mod:`.switch` renders its preview here; the app pins the notes
(:func:`render_notes`) above the diff, which scrolls."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable

from judgeaudit.credentials import scrub, scrub_content
from judgeaudit.profiles.paths import shown
from judgeaudit.profiles.targets import FilePlan, registry
from judgeaudit.redact import keylike_words, redact
from judgeaudit.terminal import printable


def _secrets_in(plan: FilePlan) -> set[str]:
    target = registry.for_kind(plan.kind)
    found: set[str] = set()
    for content in (plan.before, plan.after):
        if not content:
            continue
        try:
            found |= target.secrets_in(content.decode("utf-8").removeprefix("\ufeff"))
        except ValueError:  # UnicodeDecodeError too: a file that does not parse has no values
            continue
    commands = {
        entry["ref"]
        for dotted, entry in plan.ledger.items()
        if dotted in target.command_keys and "ref" in entry
    }
    split = {entry["ref"] for entry in plan.ledger.values() if "left" in entry and "ref" in entry}
    for ref, raw in plan.save_secrets.items():
        if ref in split:  # only part of it was a secret (custom headers): masked line by line
            continue
        text = raw.strip('"')
        found |= keylike_words(text) if ref in commands else {text}
    return found


def _masked(text: str, found: Iterable[str]) -> str:
    """The one masking of the diff and of a whole file: the values ``found`` (under a key-like
    name, a key in a helper command or a custom header), then what no key name marks: a URL's
    user:password@ and any key-shaped word (a base URL the user wrote with a key in it)."""
    return scrub_content(redact(text, found))


def masked_file(app: str, text: str, markers: Collection[str] = ()) -> str:
    """A whole file of ``app`` (a backup the app previews, or asks to restore) masked as the
    switch's diff masks it (:func:`_masked`), but for a backup's own ``markers``. A file that does not parse has every key-like
    word masked too (:func:`~judgeaudit.credentials.scrub`). Printable as the diff is
    (:func:`judgeaudit.terminal.printable`)."""
    try:
        found = registry.for_app(app).secrets_in(text.removeprefix("\ufeff"))
    except ValueError:  # UnicodeDecodeError and TOML/JSON errors too
        return printable(scrub(text), layout=True)
    # a backup's markers (``markers``: the exact texts it wrote) name the keyring entries its
    # tokens went to, no secret: masked, they showed an entry name's last four as if they were
    # the token's (a new user could not tell them); a header line holds one after its name
    found = {v for v in found if v not in markers and v.partition(": ")[2] not in markers}
    return printable(_masked(text, found), layout=True)


def render_notes(plans: list[FilePlan]) -> list[str]:
    """Every file's notes (what the switch removes, replaces, moves, holds back), masked as the
    diff is, each naming its file when several have notes: the app pins them above its diff."""
    many = sum(1 for plan in plans if plan.notes) > 1
    return [
        printable(_masked(f"{shown(plan.path)}: {note}" if many else note, _secrets_in(plan)))
        for plan in plans
        for note in plan.notes
    ]


def render_diff(plans: list[FilePlan], *, notes: bool = True) -> str:
    """The unified diff of every file, with what it replaces or removes (``notes``: each file's
    notes after its diff; :func:`render_notes` gives them apart); keys masked, a control or bidi
    character of a value shown, not obeyed (:func:`judgeaudit.terminal.printable`)."""
    chunks = []
    for plan in plans:
        before = (plan.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        after = (plan.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        label = shown(plan.path)
        text = "".join(
            # a last line without its line end is marked as git marks it (it ran into the note)
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in difflib.unified_diff(
                before,
                after,
                label if plan.before is not None else "/dev/null",
                label if plan.after is not None else "/dev/null",
            )
        )
        text = text or f"{label}: no change\n"
        text += "".join(f"  note: {note}\n" for note in plan.notes if notes)
        masked = _masked(text, _secrets_in(plan))
        chunks.append(printable(masked, layout=True))  # a value's bidi control shown, not obeyed
    return "".join(chunks)

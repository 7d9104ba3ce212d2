"""Whether a profile being saved has a way to get its key: one rule for `profile add`, `profile
edit`, the app's profile form and the importers (`profile import FILE`, `profile
import-ccswitch`), so none saves what another refuses (a Codex profile with key_mode command and
no keyring entry, which `use` and `exec` then refused)."""

from __future__ import annotations

from typing import NamedTuple

from judgeaudit.profiles.model import Profile, ProfileError

#: How the CLI's ``profile add`` names the two fields (the app's form names them as they are).
FLAGS = ("--key NAME", "--key-env VAR")


class Imported(NamedTuple):
    """How an importer's refusal of an entry without a key says what its source lacks
    (``no api_key_env``) and where the user gives it (``give the entry ...``)."""

    missing: str
    give: str


def check_has_key(
    profile: Profile,
    verb: str,
    fields: tuple[str, str] | Imported = FLAGS,
    had_key: bool | None = None,
) -> None:
    """Refuse a ``profile`` that names neither a keyring entry nor a variable: no tool it is
    switched to could get a key. ``fields``: how the refusal names ``key`` and ``key_env``, or
    for an importer's entry what its source lacks (:class:`Imported`). ``had_key``: None for a
    new profile; for an edit, whether it had a key before: an edit that takes the last one away
    is refused in an edit's words, while one of a profile that never had a key (a hand-written
    file) goes through, so its other fields can still be mended."""
    if profile.key or profile.key_env or had_key is False:
        return
    if isinstance(fields, Imported):  # an imported entry: skipped, said in its source's terms
        raise ProfileError(
            f"{verb}: {fields.missing}; a profile without a key cannot be used: {fields.give} "
            f"and import it again, or `judgeaudit profile add {profile.name} --key NAME ...`; "
            "not imported"
        )
    if had_key:
        raise ProfileError(
            f"{verb}: that leaves {profile.name} without a key; give {fields[0]} or {fields[1]} "
            "in the same edit (a profile without a key cannot be used); nothing was saved"
        )
    raise ProfileError(
        f"{verb}: give {fields[0]} (the keyring entry holding the key; store it with "
        f"`judgeaudit key set NAME`) or {fields[1]}; a profile without a key cannot be used; "
        "nothing was saved"
    )


def check_key_source(profile: Profile, verb: str) -> None:
    """Refuse ``profile`` when its tool could not get a key, at save rather than at ``use``:
    one line starting with ``verb`` (``profile add``, ``profile edit``, ``form``) and saying
    nothing was saved. How Codex gets it is the Codex target's rule (``key_mode``)."""
    if profile.app != "codex":
        return
    from judgeaudit.profiles.targets import codex  # the target's modules: only for codex

    try:
        codex.key_mode(profile)
    except ProfileError as exc:
        raise ProfileError(f"{verb}: {exc}; nothing was saved") from None


def check_key(
    profile: Profile, verb: str, fields: tuple[str, str] = FLAGS, had_key: bool | None = None
) -> None:
    """Both checks in the one order `profile add`, `profile edit` and the form share: a profile
    without any key is answered by :func:`check_has_key` (a Codex one too, whose default key
    mode would otherwise answer first in other words), then how its tool gets the key."""
    check_has_key(profile, verb, fields, had_key)
    check_key_source(profile, verb)

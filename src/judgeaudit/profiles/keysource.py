"""Whether a profile being saved has a way to get its key: one rule for `profile add`, `profile
edit` and the app's profile form, so the form cannot save what the CLI refuses (a Codex profile
with key_mode command and no keyring entry, which `use` and `exec` then refused)."""

from __future__ import annotations

from judgeaudit.profiles.model import Profile, ProfileError


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

"""What a twenty-eighth-session review of the profile, key and exec CLI found wrong, as a user
meets it: the real CLI in a fresh world, with the real Secret Service keyring where a key is
stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.new_user_helpers import cli, home, one_line

__all__ = ["home"]  # the fixture, shared


@pytest.mark.parametrize(
    ("extra", "hint"),
    [
        ((), "e.g. https://taotoken.net/api (Claude Code appends /v1/messages itself)"),
        (
            ("--option", "bridge=chat"),
            "e.g. https://taotoken.net/api/v1 (the OpenAI-compatible base, ending in /v1)",
        ),
    ],
)
def test_a_bridged_claude_profiles_url_hint_asks_for_v1(
    home: Path, extra: tuple[str, ...], hint: str
) -> None:
    """A refused base URL of a bridged Claude profile said "Claude Code appends /v1/messages
    itself": its bridge talks to an OpenAI-compatible gateway, whose base ends in /v1."""
    done = cli(home, "profile", "add", "bc", "--app", "claude", "--base-url", "gw.example/v1",
               "--key-env", "GW_KEY", *extra)  # fmt: skip
    assert done.returncode == 2
    assert one_line(done) == (
        f"judgeaudit: profile add: base_url: must start with http:// or https:// ({hint}); "
        "nothing was saved"
    )

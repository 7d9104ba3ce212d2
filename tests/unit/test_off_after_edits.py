"""`profile off` after hand edits and mixed key modes: the file comes back byte for byte, and a
credential never goes back beside a base URL it was not saved with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.cli import main
from judgeaudit.profiles import secrets
from judgeaudit.profiles.model import profile_from_dict
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import turn_off, use_profile

OLD_TOKEN = "sk-old-provider-0123456789abcdef"
GATEWAY_KEY = "gk-old-provider-fedcba9876543210"


def settings(tmp_path: Path) -> Path:
    return tmp_path / "claude" / "settings.json"


def add_profiles(store: ProfileStore) -> None:
    secrets.set_key("ka", "sk-profile-a-0000000000000000")
    secrets.set_key("ki", "sk-profile-i-1111111111111111")
    profiles: dict[str, dict[str, object]] = {
        "a-claude": {"base_url": "http://127.0.0.1:1", "key": "ka"},
        "b-claude": {"base_url": "http://127.0.0.1:2", "key": "ka"},
        "i-claude": {
            "base_url": "http://127.0.0.1:3",
            "key": "ki",
            "options": {"key_mode": "inline"},
        },
    }
    for name, data in profiles.items():
        store.save(profile_from_dict({"name": name, "app": "claude", **data}, "test"))


FULL = {
    "env": {
        "ANTHROPIC_AUTH_TOKEN": OLD_TOKEN,
        "ANTHROPIC_BASE_URL": "https://old.example.com/api",
        "ANTHROPIC_DEFAULT_OPUS_MODEL": "old-opus",
        "ANTHROPIC_CUSTOM_HEADERS": f"x-gateway-key: {GATEWAY_KEY}\nX-Org: acme",
        "FOO": "1",
    },
    "permissions": {"allow": []},
}
MINIMAL = {
    "env": {"ANTHROPIC_AUTH_TOKEN": OLD_TOKEN, "ANTHROPIC_BASE_URL": "https://o/", "FOO": "1"}
}


@pytest.mark.parametrize("start", [FULL, MINIMAL], ids=["full", "minimal"])
@pytest.mark.parametrize(
    "sequence",
    [
        ["a-claude", "i-claude"],
        ["i-claude", "a-claude"],
        ["i-claude"],
        ["a-claude", "i-claude", "b-claude"],
    ],
)
def test_off_gives_the_file_back_byte_for_byte(
    isolated: ProfileStore, tmp_path: Path, start: dict[str, object], sequence: list[str]
) -> None:
    original = json.dumps(start, indent=2) + "\n"
    settings(tmp_path).write_text(original)
    add_profiles(isolated)
    for name in sequence:
        use_profile(isolated, name)
    turn_off(isolated, "claude")
    assert settings(tmp_path).read_text() == original


def _edit_base_url(path: Path, url: str) -> None:
    data = json.loads(path.read_text())
    data["env"]["ANTHROPIC_BASE_URL"] = url
    path.write_text(json.dumps(data, indent=2) + "\n")


@pytest.mark.parametrize("then", [[], ["b-claude"], ["i-claude"]])
def test_off_never_pairs_the_old_credential_with_a_new_base_url(
    isolated: ProfileStore, tmp_path: Path, then: list[str]
) -> None:
    path = settings(tmp_path)
    original = json.dumps(FULL, indent=2) + "\n"
    path.write_text(original)
    add_profiles(isolated)
    use_profile(isolated, "a-claude")
    _edit_base_url(path, "http://127.0.0.1:9")  # by hand, while switched
    for name in then:
        use_profile(isolated, name)
    result = turn_off(isolated, "claude")
    text = path.read_text()
    env = json.loads(text)["env"]
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"  # the user's edit stays
    assert OLD_TOKEN not in text and GATEWAY_KEY not in text
    assert "ANTHROPIC_AUTH_TOKEN" not in env and "apiKeyHelper" not in json.loads(text)
    assert env["ANTHROPIC_CUSTOM_HEADERS"] == "X-Org: acme"  # its other lines stay
    assert env["ANTHROPIC_DEFAULT_OPUS_MODEL"] == "old-opus"
    assert (
        "holds back your env.ANTHROPIC_AUTH_TOKEN, env.ANTHROPIC_CUSTOM_HEADERS: saved with "
        "ANTHROPIC_BASE_URL https://old.example.com/api, which you changed to "
        "http://127.0.0.1:9" in " ".join(result.diff.split())
    )
    assert OLD_TOKEN not in result.diff and GATEWAY_KEY not in result.diff
    assert result.plans[0].held
    # Nothing lost: a second off says it again; with the URL set back, off gives it all back.
    assert turn_off(isolated, "claude").plans[0].held
    _edit_base_url(path, "https://old.example.com/api")
    assert not turn_off(isolated, "claude").plans[0].held
    assert path.read_text() == original  # byte for byte


def test_off_says_what_it_held_back(
    isolated: ProfileStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings(tmp_path).write_text(json.dumps(FULL, indent=2) + "\n")
    add_profiles(isolated)
    use_profile(isolated, "a-claude")
    _edit_base_url(settings(tmp_path), "http://127.0.0.1:9")
    capsys.readouterr()
    assert main(["profile", "off", "claude"]) == 0
    out = capsys.readouterr().out
    assert "note: holds back your env.ANTHROPIC_AUTH_TOKEN" in out
    assert out.rstrip().endswith(
        "judgeaudit is off for claude: its keys removed, your values back but those held back "
        "(note above)"
    )
    assert OLD_TOKEN not in out and GATEWAY_KEY not in out
    assert main(["profile", "off", "claude"]) == 0  # again: still kept, said again
    assert "note: holds back your env.ANTHROPIC_AUTH_TOKEN" in capsys.readouterr().out


def test_off_of_a_file_that_is_gone_changes_nothing_and_keeps_your_values(
    isolated: ProfileStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(json.dumps(FULL, indent=2) + "\n")
    settings(tmp_path).symlink_to(dotfiles)
    add_profiles(isolated)
    use_profile(isolated, "a-claude")
    state_before = (isolated.root / "state.json").read_bytes()
    linked = dotfiles.read_bytes()
    settings(tmp_path).unlink()  # the link, by hand
    capsys.readouterr()
    assert main(["profile", "off", "claude"]) == 2
    done = capsys.readouterr()
    assert done.out == ""
    line = done.err.strip()
    assert "\n" not in line and f"{settings(tmp_path)}: is gone" in line
    assert "env.ANTHROPIC_AUTH_TOKEN" in line and "nothing was changed" in line
    assert OLD_TOKEN not in line and GATEWAY_KEY not in line
    assert (isolated.root / "state.json").read_bytes() == state_before  # the ledger kept
    assert not settings(tmp_path).exists() and dotfiles.read_bytes() == linked
    settings(tmp_path).symlink_to(dotfiles)  # put back: off gives it all back
    turn_off(isolated, "claude")
    assert dotfiles.read_text() == json.dumps(FULL, indent=2) + "\n"


def test_off_of_a_file_judgeaudit_made_that_is_gone_says_so(
    isolated: ProfileStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_profiles(isolated)
    use_profile(isolated, "a-claude")  # no settings file before: judgeaudit made it
    settings(tmp_path).unlink()
    capsys.readouterr()
    assert main(["profile", "off", "claude"]) == 0
    out = capsys.readouterr().out
    assert "note: is gone: nothing of yours was in it, nothing to put back" in out
    assert not settings(tmp_path).exists() and not isolated.state()["owned"]


def test_the_held_back_note_masks_a_key_in_either_url(
    isolated: ProfileStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """lane-off's own note: the saved and the new base URL were printed as they are, and a URL
    can carry a key (user:password@, a query token)."""
    secret = "sk-in-the-url-" + "9" * 20
    settings(tmp_path).write_text(json.dumps(FULL, indent=2) + "\n")
    add_profiles(isolated)
    use_profile(isolated, "a-claude")
    url = f"https://me:{secret}@gw.example.com/api?key={secret}&token=hunter2-plain"
    _edit_base_url(settings(tmp_path), url)
    capsys.readouterr()
    assert main(["profile", "off", "claude"]) == 0
    out = capsys.readouterr().out
    note = next(line for line in out.splitlines() if "holds back" in line)
    assert "gw.example.com" in note and secret not in out  # the note, and the diff above it
    assert "hunter2" not in note  # a query holds tokens of any shape: left out of the note

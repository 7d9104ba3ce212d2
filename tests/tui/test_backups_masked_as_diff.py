"""The Backups dialog masks a backup as the CLI's switch diff masks the same file: a base URL's
user:password@ and a key-shaped word under no key-like name, not only the values the file's
keys name (a review: the CLI masked them, the app's preview and restore confirmation showed
them in clear)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.cli import main
from judgeaudit.profiles.store import ProfileStore
from tests.tui.test_backups_dialog import oldest_backup_shown

URL_SECRET = "hunter2pass" + "Zq9"
SHAPED = "sk-ant-" + "Vb3Nm8Kq2Wx5" * 3
GATEWAY = f"https://me:{URL_SECRET}@gw.example.test/v1"


def _users_file(tmp_path: Path) -> None:
    mine = {"env": {"ANTHROPIC_BASE_URL": GATEWAY}, "spinnerTip": f"old {SHAPED}"}
    (tmp_path / "claude" / "settings.json").write_text(json.dumps(mine, indent=2) + "\n")


def test_the_cli_diff_masks_them(
    isolated: ProfileStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _users_file(tmp_path)
    assert main(["profile", "use", "taotoken-claude", "--dry-run"]) == 0
    shown = capsys.readouterr().out
    assert "gw.example.test" in shown and "spinnerTip" in shown, shown
    assert URL_SECRET not in shown and SHAPED not in shown, shown


def test_the_apps_backup_preview_and_restore_confirmation_mask_them(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    _users_file(tmp_path)

    preview, body = oldest_backup_shown(isolated, "escape")
    for shown in (preview, body):
        assert "gw.example.test" in shown and "spinnerTip" in shown, shown
        assert URL_SECRET not in shown and SHAPED not in shown, shown


def test_a_backup_that_does_not_parse_has_its_url_credentials_masked_too() -> None:
    from judgeaudit.profiles.diffview import masked_file

    shown = masked_file("claude", f'{{"env": {{"ANTHROPIC_BASE_URL": "{GATEWAY}",')
    assert "gw.example.test" in shown and URL_SECRET not in shown, shown


LEFTOVER = "sk-ant-" + "Lq7Rt2Yp9Wz4" * 3 + "5555"
GATEWAY_KEY = "gk-" + "Mx8Nc3Vb6" * 3 + "6666"


def test_a_token_the_backup_keeps_in_the_keyring_is_named_not_masked(
    isolated: ProfileStore, tmp_path: Path
) -> None:
    """A backup keeps a leftover token and a credential header line in the keyring and holds a
    marker naming the entry; the dialog masked the marker like a key, showing the entry name's
    last four (``…488e``) where the switch's diff had shown the token's (``…5555``): a new user
    could not recognise their token. The marker is shown: the token is in the keyring."""
    env = {
        "ANTHROPIC_AUTH_TOKEN": LEFTOVER,
        "ANTHROPIC_CUSTOM_HEADERS": f"X-Org: acme\nx-gateway-key: {GATEWAY_KEY}",
    }
    (tmp_path / "claude" / "settings.json").write_text(json.dumps({"env": env}, indent=2) + "\n")
    preview, body = oldest_backup_shown(isolated, "escape")
    for shown in (preview, body):
        assert LEFTOVER not in shown and GATEWAY_KEY not in shown, shown
        assert '"ANTHROPIC_AUTH_TOKEN": "judgeaudit-redacted: the key lives in the keyring' in shown
    assert "X-Org: acme" in body and "keyring entry saved-" in body, body


def test_a_value_that_only_starts_like_a_marker_is_still_masked() -> None:
    """Only the backup's own markers are shown as they are (a review: any value holding the
    marker's words was shown, a password after them included)."""
    from judgeaudit.profiles.backups import REDACTED_MARK
    from judgeaudit.profiles.diffview import masked_file

    ours = REDACTED_MARK + "saved-0123456789abcdef"
    planted = REDACTED_MARK + "saved-1 correct-horse-battery-staple-9f3a1c77e2"
    text = json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": ours, "GATEWAY_API_KEY": planted}})
    shown = masked_file("claude", text, frozenset({ours}))
    assert ours in shown and "correct-horse-battery-staple" not in shown, shown

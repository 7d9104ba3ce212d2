"""A settings.json whose ``ANTHROPIC_CUSTOM_HEADERS`` mixes a credential with other headers,
through the CLI with the real Secret Service: while switched the other lines stay live (byte for
byte, in order) and the credential is neither in the file nor in a backup nor in what ``use``
prints; ``off`` gives the file back byte for byte."""

from __future__ import annotations

import json
import secrets as pysecrets
from pathlib import Path

import pytest

from tests.cli_helpers import add_profile, cli_ok, make_world, world_env

pytestmark = pytest.mark.usefixtures("secret_service")


def test_use_then_off_moves_only_the_credential_line(tmp_path: Path) -> None:
    env = world_env(make_world(tmp_path))
    key = "sk-gwa-" + pysecrets.token_hex(10)
    headers = (
        "anthropic-beta: fine-grained-tool-streaming-2025-05-14\r\n"
        f"x-gateway-key: {key}\r\nX-Org: acme\r\nX-Org: \u00e9quipe-2\r\n"
    )
    user = Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(
        '{\n  "env": {\n    "ANTHROPIC_CUSTOM_HEADERS": '
        + json.dumps(headers)
        + '\n  },\n  "permissions": {"allow": []}\n}\n'
    )
    original = user.read_bytes()
    entry = "kb-" + pysecrets.token_hex(4)
    cli_ok("key", "set", entry, stdin="sk-gwb-" + pysecrets.token_hex(10) + "\n", env=env)
    add_profile(env, "b", "claude", "http://127.0.0.1:18802", "--key", entry)
    used = cli_ok("profile", "use", "b", env=env)
    assert key not in used.stdout + used.stderr
    assert "moves the x-gateway-key header out of env.ANTHROPIC_CUSTOM_HEADERS" in used.stdout
    live = user.read_text()
    assert key not in live
    assert json.loads(live)["env"]["ANTHROPIC_CUSTOM_HEADERS"] == (
        "anthropic-beta: fine-grained-tool-streaming-2025-05-14\r\nX-Org: acme\r\n"
        "X-Org: \u00e9quipe-2\r\n"
    )
    for path in (Path(env["JUDGEAUDIT_CONFIG_DIR"])).rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path
    cli_ok("profile", "off", "claude", env=env)
    assert user.read_bytes() == original


def test_a_backup_keeps_the_other_header_lines_readable_and_restores_the_value(
    tmp_path: Path,
) -> None:
    env = world_env(make_world(tmp_path))
    key = "sk-gwa-" + pysecrets.token_hex(10)
    headers = f"X-Org: acme\r\nx-gateway-key: {key}\r\nX-Team: \u00e9quipe-2"
    user = Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"env": {"ANTHROPIC_CUSTOM_HEADERS": headers}}) + "\n")
    original = user.read_bytes()
    entry = "kb-" + pysecrets.token_hex(4)
    cli_ok("key", "set", entry, stdin="sk-gwb-" + pysecrets.token_hex(10) + "\n", env=env)
    add_profile(env, "b", "claude", "http://127.0.0.1:18802", "--key", entry)
    cli_ok("profile", "use", "b", env=env)
    backups = Path(env["JUDGEAUDIT_CONFIG_DIR"]) / "backups"
    (taken,) = backups.glob("*.bak")
    assert key.encode() not in taken.read_bytes()
    kept = json.loads(taken.read_text())["env"]["ANTHROPIC_CUSTOM_HEADERS"].split("\r\n")
    assert kept[0] == "X-Org: acme" and kept[2] == "X-Team: \u00e9quipe-2"  # not one marker
    assert kept[1].startswith("x-gateway-key: judgeaudit-redacted")
    cli_ok("profile", "off", "claude", env=env)
    cli_ok("profile", "restore", taken.stem, env=env)
    assert user.read_bytes() == original  # the key back from the keyring, the rest as it was
    for path in backups.rglob("*"):
        assert key.encode() not in path.read_bytes(), path

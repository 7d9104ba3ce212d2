"""What a twenty-ninth-session review of the profile and key CLI found wrong, as a user meets it:
the real CLI in a fresh world, with the real Secret Service keyring where a key is stored."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.new_user_helpers import add, cli, home, unique

__all__ = ["home"]  # the fixture, shared


def _key() -> str:
    return "sk-" + "s29key" * 5  # built here: no key-like literal in the file


@pytest.mark.usefixtures("secret_service")
def test_key_delete_names_a_codex_table_read_only_with_c_model_provider(home: Path) -> None:
    """Since the twenty-eighth session only the tables a Codex file selects count as readers of
    a key. `profile use ca`, a hand edit of its table (so the switch keeps it), `profile use cb`,
    and ca's own `ca.config.toml` gone: `codex -c model_provider=<ca's id>` still runs
    `key print KA` from config.toml, yet `key status KA` (once no profile names it) invited its
    deletion and `key delete KA` deleted it without a word. Both name the table and the start
    that reads it; the delete is not refused for it (no start of Codex that does not ask
    for the table breaks)."""
    ka, kb = unique("s29-ka"), unique("s29-kb")
    for name in (ka, kb):
        assert cli(home, "key", "set", name, stdin=_key()).returncode == 0
    add(home, "ca", "codex", "http://127.0.0.1:9/v1", "--model", "m", "--key", ka)
    add(home, "cb", "codex", "http://127.0.0.1:19/v1", "--model", "m", "--key", kb)
    try:
        assert cli(home, "profile", "use", "ca").returncode == 0
        config = next(home.rglob("config.toml"))
        ident = tomllib.loads(config.read_text())["model_provider"]
        edited = config.read_text().replace("\nauth = ", "\nrequest_max_retries = 4\nauth = ")
        config.write_text(edited)
        assert cli(home, "profile", "use", "cb").returncode == 0
        (config.parent / "ca.config.toml").unlink()  # the user's: `codex -p ca` is not used
        assert cli(home, "profile", "edit", "ca", "--key", kb).returncode == 0
        status = cli(home, "key", "status", ka)
        deleted = cli(home, "key", "delete", ka)
    finally:
        for name in (ka, kb):
            cli(home, "key", "delete", name, "--force")
    assert f'"print", "{ka}"' in config.read_text()  # ca's table kept, unselected
    assert (
        f"used by no profile; still read by {config} ([model_providers.{ident}], only with "
        f"`-c model_provider={ident}`)"
    ) in status.stdout, status.stdout
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stderr.splitlines() == [
        f"warning: {config}: its [model_providers.{ident}] table runs `judgeaudit key print "
        f"{ka}`, which Codex uses only when started with `-c model_provider={ident}`: such a "
        "start fails until the key is set again (or delete that table from the file)"
    ], deleted.stderr

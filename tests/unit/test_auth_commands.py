"""The key commands a switch writes are the ones exec's guard trusts (one owner,
``profiles/targets/authcmd``): a Codex table of judgeaudit's own on another gateway reads a
keyring entry, a token or the one variable it names, never the variable exec sets to another
profile's key; any other command may print that variable (a review, twentieth session)."""

from __future__ import annotations

from typing import Any

import pytest

from judgeaudit.profiles.model import Profile
from judgeaudit.profiles.targets import codex, codexauth

EXPORTED = ("OPENAI_API_KEY", "B_KEY")


def _table(**fields: Any) -> dict[str, Any]:
    profile = Profile(
        name="gwa", app="codex", base_url="https://gateway-a.example.com/v1", model="m", **fields
    )
    return codex.provider_table(profile)


@pytest.mark.parametrize(
    ("table", "read"),
    [
        (_table(key="gwkey"), []),  # key print: the keyring
        (_table(key="gwkey", options={"bridge": "chat"}), []),  # bridge-token: the keyring
        (codex.as_command(_table(key_env="GW_KEY")), ["GW_KEY"]),  # prints the one it names
        (codex.as_command(_table(key_env="OPENAI_API_KEY")), ["OPENAI_API_KEY"]),
    ],
)
def test_what_judgeaudits_own_tables_read(table: dict[str, Any], read: list[str]) -> None:
    assert "auth" in table and not codexauth.foreign_auth(table)
    assert codexauth.variables_read(table, EXPORTED) == read


@pytest.mark.parametrize(
    "auth",
    [
        {"command": "/home/u/key.sh"},  # names no variable, prints one all the same
        {"command": "sh", "args": ["-c", "printf %s $OTHER"]},
        {"command": "sh", "args": ["-m", "judgeaudit", "key", "print", "gwkey"]},  # not Python
        {"command": "python3", "args": ["-m", "judgeaudit", "key", "print", "k", "--x"]},
        {"command": "python3", "args": "-m judgeaudit key print k"},  # args not a list
    ],
)
def test_any_other_auth_command_may_print_every_exported_variable(auth: dict[str, Any]) -> None:
    table = {"base_url": "https://gateway-a.example.com/v1", "auth": auth}
    assert codexauth.foreign_auth(table)
    assert codexauth.variables_read(table, EXPORTED) == list(EXPORTED)

"""Issue 19 item 5 / issue 22 polish: a Codex switch edits config.toml without creeping.

20 alternating switches on a CC Switch-shaped file (comments, MCP tables, trust tables, a user
provider, CRLF or LF): one layout per profile, nothing lands under a user's comment, the user's
inline comment never annotates our value, and ``off`` gives the file back byte for byte.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from judgeaudit.profiles.model import profile_from_dict
from judgeaudit.profiles.store import ProfileStore, SwitchState
from judgeaudit.profiles.switch import turn_off, use_profile
from judgeaudit.profiles.tomltext import TomlText, scan

# What CC Switch writes for a custom provider, then hand edits: a comment heading the MCP
# tables, an inline comment on the model line, a multi-line array, a trust table.
CC_SWITCH_SHAPED = """\
model_provider = "custom"
model = "gpt-5-codex"   # my model
model_reasoning_effort = "high"
disable_response_storage = true

[model_providers.custom]
name = "custom"
base_url = "https://gw.example.com/v1"
wire_api = "responses"
requires_openai_auth = true

# MCP servers I use
[mcp_servers.context7]
command = "npx"
args = [
  "-y",
  "@upstash/context7-mcp",   # pinned
]

[projects."/home/me/work"]
trust_level = "trusted"
"""

# No root key of its own: the keys must not land under "# MCP servers I use".
COMMENT_HEADED = """\
# MCP servers I use
[mcp_servers.docs]
command = "docs-mcp"
"""


@pytest.fixture
def store(isolated: ProfileStore) -> ProfileStore:
    for name, host in (("tao", "taotoken.net/api"), ("deep", "api.deepseek.com")):
        data = {"name": name, "app": "codex", "base_url": f"https://{host}/v1", "key": "k1"}
        isolated.save(profile_from_dict({**data, "model": f"{name}-model"}, "test"))
    return isolated


def _after_line(text: str, line: str) -> str:
    lines = text.splitlines()
    return lines[lines.index(line) + 1]


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_twenty_alternating_switches_do_not_creep(
    store: ProfileStore, tmp_path: Path, newline: str
) -> None:
    path = tmp_path / "codex" / "config.toml"
    original = CC_SWITCH_SHAPED.replace("\n", newline).encode()
    path.write_bytes(original)
    seen: dict[str, bytes] = {}
    for i in range(20):
        name = ("tao", "deep")[i % 2]
        use_profile(store, name)
        now = path.read_bytes()
        assert seen.setdefault(name, now) == now, f"switch {i + 1} changed the layout"
        text = now.decode()
        if newline == "\r\n":
            assert text.count("\n") == text.count("\r\n"), "an LF line in a CRLF file"
        text = text.replace("\r\n", "\n")
        assert "\n\n\n" not in text
        assert _after_line(text, "# MCP servers I use") == "[mcp_servers.context7]"
        assert f'model = "{name}-model"' in text.splitlines()  # no "# my model" on our value
        data = tomllib.loads(text)
        assert data["model_reasoning_effort"] == "high"
        assert data["mcp_servers"]["context7"]["args"] == ["-y", "@upstash/context7-mcp"]
        assert data["model_providers"]["custom"]["base_url"] == "https://gw.example.com/v1"
    # Only what a switch changes differs between the two layouts: no blank line moved.
    tao, deep = (seen[n].decode().splitlines() for n in ("tao", "deep"))
    assert len(tao) == len(deep) == len(CC_SWITCH_SHAPED.splitlines()) + 6
    turn_off(store, "codex")
    assert path.read_bytes() == original


def test_new_root_keys_never_go_under_a_comment_block(store: ProfileStore, tmp_path: Path) -> None:
    path = tmp_path / "codex" / "config.toml"
    for original in (
        COMMENT_HEADED,
        '# my codex config\napproval = "on-request"\n\n' + COMMENT_HEADED,
    ):
        path.write_text(original)
        for name in ("tao", "deep", "tao"):
            use_profile(store, name)
            text = path.read_text()
            assert _after_line(text, "# MCP servers I use") == "[mcp_servers.docs]"
            assert tomllib.loads(text)["model_provider"] == "taotoken" if name == "tao" else True
        turn_off(store, "codex")
        assert path.read_text() == original


def test_no_trailing_newline_and_bom_come_back_exactly(store: ProfileStore, tmp_path: Path) -> None:
    path = tmp_path / "codex" / "config.toml"
    for original in ('approval_policy = "never"', "\ufeff# mine\n[tui]\nnotifications = true"):
        path.write_bytes(original.encode())
        use_profile(store, "tao")
        use_profile(store, "deep")
        assert tomllib.loads(path.read_text(encoding="utf-8-sig"))["model_provider"] == "deepseek"
        turn_off(store, "codex")
        assert path.read_bytes() == original.encode()


def test_scanner_keeps_multiline_values_whole() -> None:
    text = 'a = """\n[not.a.table]\n"""\nb = [\n  [1, 2],\n  [3],\n]\n[t]\nc = 1\n'
    kinds = [(s.kind, s.parts) for s in scan(text)]
    assert kinds == [("kv", ("a",)), ("kv", ("b",)), ("header", ("t",)), ("kv", ("c",))]
    doc = TomlText(text)
    doc.set_root("model", 'model = "x"')
    assert tomllib.loads(doc.text) == {
        "a": "[not.a.table]\n",
        "b": [[1, 2], [3]],
        "model": "x",
        "t": {"c": 1},
    }


def test_a_ledger_from_before_whole_lines_still_gives_the_users_line_back(
    store: ProfileStore, tmp_path: Path
) -> None:
    """Older ledgers kept only the value judgeaudit wrote (``"tao-model"``) and the user's old
    value; ``off`` after upgrading still puts the user's value back, not ours."""
    import json

    from judgeaudit.profiles.ledger import fingerprint

    path = tmp_path / "codex" / "config.toml"
    path.write_text('model = "tao-model"   # my model\nmodel_provider = "taotoken"\n')
    state: SwitchState = {
        "active": {"codex": "tao"},
        "created": [],
        "owned": {
            str(path): {
                "model": {"had": True, "raw": '"gpt-5#1"', "wrote": fingerprint('"tao-model"')},
                "model_provider": {"had": False, "wrote": fingerprint('"taotoken"')},
            }
        },
    }
    store.save_state(state)
    turn_off(store, "codex")
    assert path.read_text() == 'model = "gpt-5#1"\n'
    assert json.loads(store.state_path.read_text())["owned"] == {}

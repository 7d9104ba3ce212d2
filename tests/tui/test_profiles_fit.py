"""The Profiles table at 80×24 and 120×40: every row shows the gateway it points at (host and
port: a new user with an imported long name saw no base URL column at all, and without one saw
`http…1:18101`), a name is cut only after the URL and model are at their narrowest, a key's
status and the speed test are whole or not shown, and no header is cut (a new user saw the
header `TTFT p5…`)."""

from __future__ import annotations

import asyncio
import re
from urllib.parse import urlsplit

import pytest

from judgeaudit.profiles import latency
from judgeaudit.profiles.model import profile_from_dict
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.widgets.fit_table import FitTable
from tests.tui.helpers import SMALL, make_app, settle
from tests.tui.test_profiles_state import profiles

LONGEST = "z" * 63  # the longest name `profile add` accepts
GATEWAY = "anthropic-claude-sonnet-primary-gateway"
LABELS = {"app", " ", "name", "base URL", "model", "key", "TTFT"}


def add_profiles(store: ProfileStore, *, longest: bool) -> None:
    """Long names, a long key name, a unicode host and model, and a speed test of each."""

    def add(**data: str) -> None:
        store.save(profile_from_dict(data, "test"))

    add(name=GATEWAY, app="claude", base_url="https://api.anthropic.example.com/v1/proxy",
        model="claude-sonnet-4-5-20250929", key="anthropic-main")  # fmt: skip
    add(name="zh-router", app="codex", base_url="https://模型.example.cn/v1", model="通义千问-max",
        key_env="QWEN_KEY")  # fmt: skip
    if longest:
        add(name=LONGEST, app="codex", base_url="https://gw.example.org/v1", key_env="GW_KEY")
    timings = [
        latency.Timing(p.name, p.app, p.base_url, ttft_ms=[812.0, 1403.0, 955.0], at=1.0)
        for p in store.scan()[0]
    ]
    latency.save(store.root, timings)


def shown(store: ProfileStore, size: tuple[int, int]) -> tuple[list[str], list[dict[str, str]]]:
    """The table's headers and its rows as drawn (cells by header), checked to fit the screen."""

    async def go() -> tuple[list[str], list[dict[str, str]]]:
        app = make_app(store)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            table = profiles(app).query_one(FitTable)
            assert table.virtual_size.width <= table.size.width  # no column off screen
            headers = [str(c.label) for c in table.columns.values()]
            rows = [
                dict(zip(headers, map(str, table.get_row_at(i)), strict=True))
                for i in range(table.row_count)
            ]
            return headers, rows

    return asyncio.run(go())


@pytest.mark.parametrize("size", [SMALL, (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("longest", [False, True], ids=["long", "63-letter"])
def test_every_row_shows_its_gateway_and_no_header_is_cut(
    isolated: ProfileStore, size: tuple[int, int], longest: bool
) -> None:
    """The base URL column stays, narrowed to each row's host:port at worst (after
    `import-ccswitch` gave a long name it was dropped at 80x24: which gateway a row points at
    was not shown); a long name is cut where it parts from the others instead."""
    add_profiles(isolated, longest=longest)
    headers, rows = shown(isolated, size)
    assert set(headers) <= LABELS and "base URL" in headers, headers  # "TTFT p5…" was cut
    profiles_by_name = {p.name: p for p in isolated.scan()[0]}
    assert len(rows) == len(profiles_by_name)
    for row in rows:
        # the name shown is the profile's, whole or cut (its parts in order), never another's
        cut = re.compile(".+".join(map(re.escape, row["name"].split("…"))))
        whole = [n for n in profiles_by_name if n == row["name"]]
        named = whole or [n for n in profiles_by_name if cut.fullmatch(n)]
        assert len(named) == 1, row
        host = urlsplit(profiles_by_name[named[0]].shown_url).netloc
        assert host in row["base URL"], row  # the gateway, host and port whole
        assert "…" not in row.get("TTFT", ""), row  # whole or not shown
        key = row["key"]
        assert key.endswith(" missing") or key.startswith("env "), row  # the status whole
    by_name = {row["name"]: row for row in rows}
    if size == (120, 40) and not longest:
        assert by_name["zh-router"]["key"] == "env QWEN_KEY"
        assert by_name["zh-router"]["TTFT"] == "955/1358 ms"


def test_a_cut_url_keeps_its_end() -> None:
    """At 80 columns every loopback profile's URL read `http://127.…`, the port cut off (a new
    user's trial): the Profiles table cuts URLs a third of the way in."""
    from judgeaudit.tui.widgets.fit_table import fit

    cut = fit("http://127.0.0.1:8765/v1", 12, middle=True)
    assert not isinstance(cut, str) and cut.plain == "http…8765/v1"
    whole = fit("http://127.0.0.1:9/v1", 24, middle=True)
    assert not isinstance(whole, str) and whole.plain == "http://127.0.0.1:9/v1"


def test_a_new_user_after_import_ccswitch_sees_each_gateway_at_80x24(
    isolated: ProfileStore,
) -> None:
    """tmux 80x24: after `profile import-ccswitch` gave `ccswitch-codex-kimi-chat` the table
    dropped the base URL (and TTFT) columns; two loopback gateways read `http…1:18101` and
    `http…/api/v1`."""
    for name, url in (
        ("ccswitch-codex-kimi-chat", "https://api.moonshot.cn/v1"),
        ("gw-a", "http://127.0.0.1:18101/v1"),
        ("gw-b", "http://127.0.0.1:18102/api/v1"),
    ):
        isolated.save(
            profile_from_dict({"name": name, "app": "codex", "base_url": url, "key": name}, "t")
        )
    headers, rows = shown(isolated, SMALL)
    assert "base URL" in headers and "TTFT" in headers, headers
    by_name = {row["name"]: row for row in rows}
    assert by_name["gw-a"]["base URL"].startswith("127.0.0.1:18101")
    assert by_name["gw-b"]["base URL"].startswith("127.0.0.1:18102")
    imported = next(row for row in rows if row["name"].startswith("ccswitch-"))
    assert imported["base URL"].startswith("api.moonshot.cn")


def test_a_cut_url_keeps_its_host_and_port() -> None:
    """Scheme first, then the path, never the host:port (by hand)."""
    from judgeaudit.tui.widgets.fit_table import fit_url

    url = "http://127.0.0.1:18101/api/v1"
    assert [plain_of(fit_url(url, w)) for w in (29, 22, 17, 15)] == [
        url,
        "127.0.0.1:18101/api/v1",
        "127.0.0.1:18101/…",
        "127.0.0.1:18101",
    ]
    assert plain_of(fit_url("https://api.moonshot.cn/v1", 16)) == "api.moonshot.cn"


def plain_of(cell: object) -> str:
    from judgeaudit.tui.widgets.fit_table import plain

    assert not isinstance(cell, str)
    return plain(cell)  # type: ignore[arg-type]

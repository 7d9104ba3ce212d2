"""The Profiles table at 80×24 and 120×40: a profile's name is how the user picks it, so it is
shown whole (a new user saw `anthropic-cl…` and the header `TTFT p5…`); columns of less use give
way first, the key and the speed test are whole or not shown, and no header is cut."""

from __future__ import annotations

import asyncio

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
def test_profile_names_are_shown_whole_and_no_header_is_cut(
    isolated: ProfileStore, size: tuple[int, int], longest: bool
) -> None:
    add_profiles(isolated, longest=longest)
    headers, rows = shown(isolated, size)
    assert set(headers) <= LABELS, headers  # "TTFT p5…" was cut
    names = [p.name for p in isolated.scan()[0]]
    assert sorted(row["name"] for row in rows) == sorted(names)  # "anthropic-cl…" was cut
    for row in rows:
        for header in ("key", "TTFT"):
            assert "…" not in row.get(header, ""), row  # whole or not shown
    by_name = {row["name"]: row for row in rows}
    if not longest:  # the names fit beside the key, at 80 columns too
        assert by_name[GATEWAY]["key"] == "anthropic-main missing"
        assert by_name["zh-router"]["key"] == "env QWEN_KEY"
    if size == (120, 40) and not longest:
        assert by_name["zh-router"]["TTFT"] == "955/1358 ms"


def test_a_cut_url_keeps_its_end() -> None:
    """At 80 columns every loopback profile's URL read `http://127.…`, the port cut off (a new
    user's trial): the Profiles table cuts URLs a third of the way in."""
    from judgeaudit.tui.widgets.fit_table import fit

    cut = fit("http://127.0.0.1:8765/v1", 12, middle=True)
    assert not isinstance(cut, str) and cut.plain == "http…8765/v1"
    whole = fit("http://127.0.0.1:9/v1", 24, middle=True)
    assert not isinstance(whole, str) and whole.plain == "http://127.0.0.1:9/v1"

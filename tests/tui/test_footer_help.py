"""Every screen's footer ends with its help key whole at 80×24 (issue 22: "? Help" was glued
to the entry before it on Review, then cut off there and on Runs)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Footer

from judgeaudit.profiles.store import ProfileStore
from tests.tui.helpers import SMALL, make_app, press


def test_help_key_is_whole_and_apart_on_every_screen_at_80_columns(
    isolated: ProfileStore, run_copy: Path
) -> None:
    async def go() -> dict[str, list[str]]:
        app = make_app(isolated, run_copy)
        seen: dict[str, list[str]] = {}
        async with app.run_test(size=SMALL) as pilot:
            for key in ("f1", "f2", "f3", "f4", "f5", "f6", "f7"):
                await press(pilot, key)
                footer = app.screen.query_one(Footer)
                palette = [k for k in footer.children if "palette" in str(k.render())]
                right = min((k.region.x for k in palette), default=SMALL[0])
                seen[key] = [
                    str(k.render()).strip()
                    for k in footer.query("FooterKey")
                    if k.region.width and k.region.right <= right
                ]
        return seen

    seen = asyncio.run(go())
    for key, entries in seen.items():
        assert entries[-1] in ("? Help", "f10 Help"), (key, entries)

"""The Add-profile form says what to type when a required field is empty (issue 22: it said
"name: missing or not a string")."""

from __future__ import annotations

import asyncio

from textual.widgets import Static

from judgeaudit.profiles.store import ProfileStore
from tests.tui.helpers import SMALL, make_app, press


def test_add_form_names_the_empty_field_and_what_to_give(isolated: ProfileStore) -> None:
    async def go() -> tuple[str, str]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "a", "ctrl+s")
            no_name = str(app.screen.query_one("#form-error", Static).render())
            await pilot.press(*"mine")
            await press(pilot, "ctrl+s")
            return no_name, str(app.screen.query_one("#form-error", Static).render())

    no_name, no_url = asyncio.run(go())
    assert no_name == 'name: missing; give a name of letters, digits, "-" and "_"'
    assert no_url == "base_url: missing; give the API's base URL"

"""The Add-profile form says what to type when a required field is empty (issue 22: it said
"name: missing or not a string")."""

from __future__ import annotations

import asyncio

from textual.widgets import Input, Static

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


def test_a_key_pasted_into_a_name_field_is_hidden_at_once(isolated: ProfileStore) -> None:
    """A new user pasted the API key into the form's key-name field: it was shown in clear (on
    screen, in any screenshot) until Save refused it."""
    key = "sk-" + "Zq8" * 10

    async def go() -> tuple[bool, str, str, bool, str]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "a")
            field = app.screen.query_one("#f-key", Input)
            field.focus()
            await pilot.press(*key)
            await pilot.pause()
            said = str(app.screen.query_one("#form-error", Static).render())
            screen, hidden = app.export_screenshot(), field.password
            field.value = ""
            await pilot.press(*"my-key")
            await pilot.pause()
            return (
                hidden,
                said,
                screen,
                app.screen.query_one("#f-key", Input).password,
                str(app.screen.query_one("#form-error", Static).render()),
            )

    hidden, said, screen, hidden_after, said_after = asyncio.run(go())
    assert hidden and key not in screen and key[-12:] not in screen
    assert said.startswith("key: that looks like an API key, so it is hidden")
    assert "press k on it" in said
    assert not hidden_after and said_after == ""

"""The Add-profile form says what to type when a required field is empty (issue 22: it said
"name: missing or not a string")."""

from __future__ import annotations

import asyncio

from textual.widgets import Input, Select, Static

from judgeaudit.profiles.store import ProfileStore
from tests.tui.helpers import SMALL, make_app, press, settle


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


def test_the_form_refuses_a_codex_profile_in_the_clis_words(isolated: ProfileStore) -> None:
    """A Codex profile with key_mode command reads a keyring entry: `profile add` and `profile
    edit` refused one without it, and the app's form saved it (a twenty-seventh-session review).
    The form then answered a Codex profile with no key at all by the key-mode rule, while
    `profile add` and `profile edit` answer it by the key rule (a twenty-eighth-session review):
    one owner (`check_key` in keysource.py) orders both checks for the CLI and the form. A new
    one, an edit clearing the key, an edit leaving only a variable: the CLI's words; nothing
    saved."""
    from judgeaudit.tui.screens.modals import ProfileForm
    from tests.tui.test_state import select

    file = isolated.user_dir / "taotoken-codex.toml"

    async def go() -> tuple[str, str, str, bool]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await press(pilot, "a")
            app.screen.query_one("#f-app", Select).value = "codex"
            for field, value in (("name", "c-new"), ("base_url", "https://gw.example.com/v1")):
                app.screen.query_one(f"#f-{field}", Input).value = value
            await press(pilot, "ctrl+s")
            added = str(app.screen.query_one("#form-error", Static).render())
            await press(pilot, "escape")
            await select(pilot, app, "taotoken-codex")  # a preset: key_mode command
            await press(pilot, "e")
            app.screen.query_one("#f-key", Input).value = ""
            await press(pilot, "ctrl+s")
            cleared = str(app.screen.query_one("#form-error", Static).render())
            app.screen.query_one("#f-key_env", Input).value = "GW_KEY"
            await press(pilot, "ctrl+s")
            by_env = str(app.screen.query_one("#form-error", Static).render())
            return added, cleared, by_env, isinstance(app.screen, ProfileForm)

    added, cleared, by_env, edit_open = asyncio.run(go())
    assert added == (  # `profile add`'s words, with the form's field names
        "give key NAME (the keyring entry holding the key; store it with `judgeaudit key set "
        "NAME`) or key_env VAR; a profile without a key cannot be used; nothing was saved"
    )
    assert cleared == (  # `profile edit --key ''`'s
        "that leaves taotoken-codex without a key; give key NAME or key_env VAR in the same edit "
        "(a profile without a key cannot be used); nothing was saved"
    )
    # `profile edit --key '' --key-env GW_KEY`'s: the key-mode rule
    assert by_env.startswith("profile 'taotoken-codex': key_mode command reads a keyring entry")
    assert "`--option key_mode=env_key` to read $GW_KEY" in by_env, by_env
    assert edit_open and by_env.endswith("; nothing was saved"), by_env
    assert not isolated.exists("c-new") and not file.exists()
    assert isolated.get("taotoken-codex").key == "taotoken"


def test_the_form_refuses_a_profile_without_key_or_key_env(isolated: ProfileStore) -> None:
    """`profile add` refuses a profile naming neither a keyring entry nor a variable (no tool
    could get a key); the app's form saved one (a twenty-eighth-session review). Refused in the
    form, in the CLI's words with the form's field names; nothing saved. A key_env alone is
    enough, as in the CLI."""
    from judgeaudit.tui.screens.modals import ProfileForm

    async def go() -> tuple[str, bool, bool]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await press(pilot, "a")
            for field, value in (("name", "s-new"), ("base_url", "https://gw.example.com/v1")):
                app.screen.query_one(f"#f-{field}", Input).value = value
            await press(pilot, "ctrl+s")
            said = str(app.screen.query_one("#form-error", Static).render())
            still_open = isinstance(app.screen, ProfileForm)
            app.screen.query_one("#f-key_env", Input).value = "GW_KEY"
            await press(pilot, "ctrl+s")
            return said, still_open, isinstance(app.screen, ProfileForm)

    said, still_open, open_after = asyncio.run(go())
    assert still_open and said == (
        "give key NAME (the keyring entry holding the key; store it with `judgeaudit key set "
        "NAME`) or key_env VAR; a profile without a key cannot be used; nothing was saved"
    )
    assert not open_after and isolated.get("s-new").key_env == "GW_KEY"


def test_the_forms_edit_that_drops_the_key_is_refused_in_an_edits_words(
    isolated: ProfileStore,
) -> None:
    """Editing a profile in the form and clearing its key was refused in `profile add`'s words
    ("give key NAME ..."), while `profile edit` says the edit leaves the profile without a key
    (a twenty-eighth-session review): one rule, in keysource.py, says it for both. Nothing
    saved; giving a key_env in the same edit saves."""
    from judgeaudit.tui.screens.modals import ProfileForm
    from tests.tui.test_state import select

    async def go() -> tuple[str, bool, bool]:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await select(pilot, app, "taotoken-sdk")
            await press(pilot, "e")
            app.screen.query_one("#f-key", Input).value = ""
            await press(pilot, "ctrl+s")
            said = str(app.screen.query_one("#form-error", Static).render())
            still_open = isinstance(app.screen, ProfileForm)
            app.screen.query_one("#f-key_env", Input).value = "TT_KEY"
            await press(pilot, "ctrl+s")
            return said, still_open, isinstance(app.screen, ProfileForm)

    said, still_open, open_after = asyncio.run(go())
    assert still_open and said == (
        "that leaves taotoken-sdk without a key; give key NAME or key_env VAR in the same edit "
        "(a profile without a key cannot be used); nothing was saved"
    )
    assert not open_after
    saved = isolated.get("taotoken-sdk")
    assert saved.key is None and saved.key_env == "TT_KEY"

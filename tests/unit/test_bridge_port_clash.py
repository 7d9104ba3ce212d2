"""Two profiles switched on at once cannot share a bridge port: `profile use` and `profile edit`
refuse, naming the profile already there; `judgeaudit bridge` on a port a bridge of ours holds
names that bridge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.cli import main
from judgeaudit.profiles import secrets
from judgeaudit.profiles.model import ProfileError, profile_from_dict, with_changes
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.profiles.switch import use_profile
from tests.helpers import free_port, json_on_get, loopback_http, loopback_port


def add(store: ProfileStore, name: str, app: str, port: int) -> None:
    options = {"bridge": "chat", "bridge_port": port}
    data = {"name": name, "app": app, "base_url": "https://gw.example/v1", "model": "m"}
    store.save(profile_from_dict({**data, "key": "gw", "options": options}, "test"))


@pytest.fixture
def codex_on(isolated: ProfileStore) -> int:
    """c-codex switched on globally for Codex, its bridge on a port nothing listens on yet."""
    secrets.set_key("gw", "sk-upstream-0123456789abcdef")
    port = free_port()
    add(isolated, "c-codex", "codex", port)
    add(isolated, "d-claude", "claude", free_port())
    use_profile(isolated, "c-codex")
    return port


def test_use_refuses_a_port_another_switched_profile_has(
    isolated: ProfileStore, tmp_path: Path, codex_on: int
) -> None:
    add(isolated, "d-claude", "claude", codex_on)  # as `profile edit` once let it be
    live = tmp_path / "claude" / "settings.json"
    live.write_text("{}")
    state = (isolated.root / "state.json").read_bytes()
    with pytest.raises(ProfileError) as refused:
        use_profile(isolated, "d-claude")
    line = str(refused.value)
    assert f"bridge_port {codex_on} is where 'c-codex' (switched on globally for codex)" in line
    assert "nothing was changed" in line and "--option bridge_port=PORT" in line
    assert live.read_text() == "{}" and (isolated.root / "state.json").read_bytes() == state
    add(isolated, "d-claude", "claude", free_port())
    use_profile(isolated, "d-claude")  # its own port: goes ahead


def test_edit_refuses_the_port_and_saves_nothing(
    isolated: ProfileStore, codex_on: int, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = isolated.get("d-claude")
    capsys.readouterr()
    assert main(["profile", "edit", "d-claude", "--option", f"bridge_port={codex_on}"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'c-codex' (switched on globally for codex)" in err
    assert isolated.get("d-claude") == saved
    assert main(["profile", "edit", "c-codex", "--model", "m2"]) == 0  # its own port: no clash


_OUR_BRIDGE = json.dumps({"name": "judgeaudit bridge", "profile": "c-codex"}).encode()


def test_bridge_on_a_port_our_bridge_holds_names_it(
    isolated: ProfileStore, codex_on: int, capsys: pytest.CaptureFixture[str]
) -> None:
    with loopback_http(json_on_get(_OUR_BRIDGE)) as url:
        port = loopback_port(url)
        capsys.readouterr()
        assert main(["bridge", "d-claude", "--port", str(port), "--quiet"]) != 0
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"cannot listen on 127.0.0.1:{port}: " in err
    assert "`judgeaudit bridge c-codex` is running there" in err


def test_bridge_on_another_host_asks_that_host_who_holds_the_port(
    isolated: ProfileStore, codex_on: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review: the in-use message asked 127.0.0.1 whatever --host was, so a bridge of ours
    holding 127.0.0.2:PORT (nothing on 127.0.0.1:PORT) went unnamed."""
    import threading
    from http.server import ThreadingHTTPServer

    server = ThreadingHTTPServer(("127.0.0.2", 0), json_on_get(_OUR_BRIDGE))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = int(server.server_address[1])
    try:
        capsys.readouterr()
        given = ["bridge", "d-claude", "--host", "127.0.0.2", "--port", str(port), "--quiet"]
        assert main(given) != 0
    finally:
        server.shutdown()
        server.server_close()
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"cannot listen on 127.0.0.2:{port}: " in err, err
    assert "`judgeaudit bridge c-codex` is running there" in err
    assert "(--port, or `judgeaudit profile edit PROFILE --option bridge_port=PORT`)" in err


def test_doctor_does_not_advise_taking_over_the_other_profiles_bridge(
    isolated: ProfileStore, codex_on: int, capsys: pytest.CaptureFixture[str]
) -> None:
    use_profile(isolated, "d-claude")
    add(isolated, "d-claude", "claude", codex_on)  # switched before the refusal existed
    capsys.readouterr()
    assert main(["profile", "doctor", "claude"]) == 0
    out = capsys.readouterr().out
    assert "is also the port of 'c-codex' (switched on globally for codex)" in out
    assert "do not restart it as d-claude" in out and "--option bridge_port=PORT" in out
    assert "start `judgeaudit bridge d-claude`" not in out


def test_add_refuses_the_port_and_saves_nothing(
    isolated: ProfileStore, codex_on: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review: only `profile edit` checked the port; `profile add` saved the clash."""
    capsys.readouterr()
    given = ["profile", "add", "e-claude", "--app", "claude", "--base-url", "https://gw.example"]
    given += ["--key", "gw", "--option", "bridge=chat", "--option", f"bridge_port={codex_on}"]
    assert main(given) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'c-codex' (switched on globally for codex)" in err
    assert err.endswith("nothing was changed: pick another")  # no `profile edit` of a profile
    assert not isolated.exists("e-claude")  # that is not there


def test_the_apps_form_refuses_the_port_and_saves_nothing(
    isolated: ProfileStore, codex_on: int
) -> None:
    """A review: the app's profile form saved the clash the CLI refuses (its save is the
    CLI's now: bridgeports.save)."""
    import asyncio

    from textual.widgets import Static

    from tests.tui.helpers import SMALL, make_app, settle
    from tests.tui.test_profiles_state import profiles

    saved = isolated.get("d-claude")
    clash = with_changes(saved, {"options": {"bridge": "chat", "bridge_port": codex_on}})

    async def go() -> str:
        app = make_app(isolated)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            profiles(app).saved(clash)  # what the form's Save hands over
            for _ in range(50):
                said = str(profiles(app).query_one("#profiles-status", Static).render())
                if said.startswith("not saved"):
                    break
                await pilot.pause(0.05)
            return said

    said = " ".join(asyncio.run(go()).split())
    assert said.startswith("not saved: profile 'd-claude': bridge_port"), said
    assert "'c-codex' (switched on globally for codex)" in said
    assert isolated.get("d-claude") == saved

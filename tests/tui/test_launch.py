"""The Launch form builds its spec with tomlkit and validates it with the spec module before
anything is written (issue 13, item 7's form part)."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from judgeaudit.audit.inputs import load_spec
from judgeaudit.audit.store import AuditStore
from judgeaudit.profiles.store import ProfileStore
from judgeaudit.tui.screens.launch import FORM_DEFAULTS, SPEC_NAME, write_form_spec
from judgeaudit.tui.screens.run import RunScreen
from tests.tui.helpers import SIZE, make_app, press, run_from_launch, settle


def form(**changes: str) -> dict[str, str]:
    return {**FORM_DEFAULTS, **changes}


def test_form_spec_is_valid_toml_even_with_quotes_in_names(tmp_path: Path) -> None:
    path = write_form_spec(
        form(agents='agent-ace, agent-weak:claims=0.9, "odd" name', seed="11"), False, tmp_path
    )
    data = tomllib.loads(path.read_text())
    assert [a["model"] for a in data["agents"]] == [
        "agent-ace",
        "agent-weak:claims=0.9",
        '"odd" name',
    ]
    spec = load_spec(path)  # the same spec module reads it back
    assert spec.seed == 11 and spec.swap is False and len(spec.agents) == 3


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"concurrency": "lots"}, "concurrency: 'lots' is not a whole number"),
        ({"agents": "agent-ace, agent-ace"}, "agents: agent names must be unique"),
        ({"agents": "agent-ace"}, "agents: need at least two [[agents]] to compare"),
        ({"concurrency": "0"}, "run.concurrency: 0 is out of range; use 1 to 1024"),
    ],
)
def test_bad_form_is_refused_and_nothing_written(
    isolated: ProfileStore, tmp_path: Path, changes: dict[str, str], message: str
) -> None:
    out = tmp_path / "out"

    async def go() -> tuple[str, bool]:
        app = make_app(isolated, out)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f2")
            for field, value in changes.items():
                app.screen.query_one(f"#l-{field}", Input).value = value
            await press(pilot, "ctrl+b")
            said = str(app.screen.query_one("#launch-status", Static).render())
            return said, isinstance(app.screen, RunScreen)

    said, started = asyncio.run(go())
    assert message in said and not started
    assert not (out / SPEC_NAME).exists()


def test_form_run_starts_from_the_written_spec(isolated: ProfileStore, tmp_path: Path) -> None:
    out = tmp_path / "out"

    async def go() -> Path:
        app = make_app(isolated, out)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f2")
            app.screen.query_one("#l-agents", Input).value = "agent-ace, agent-weak"
            await press(pilot, "ctrl+b")
            screen = app.screen
            assert isinstance(screen, RunScreen) and screen.bridge is not None
            screen.cancel_answered(True)  # `c` asks first; this is its "yes"
            await settle(pilot)
            return screen.bridge.spec_path

    assert asyncio.run(go()) == out / SPEC_NAME


def test_form_endpoint_is_a_profile_or_a_url(tmp_path: Path) -> None:
    for value, key, expected in (
        ("taotoken-sdk", "profile", "taotoken-sdk"),
        ("http://127.0.0.1:9/v1", "base_url", "http://127.0.0.1:9/v1"),
        ("embedded", "base_url", "embedded"),
    ):
        path = write_form_spec(form(endpoint=value), True, tmp_path)
        assert tomllib.loads(path.read_text())["endpoints"]["sim"] == {key: expected}
        assert load_spec(path).endpoints["sim"].embedded == (value == "embedded")


def test_unknown_model_is_named_before_it_runs(isolated: ProfileStore, tmp_path: Path) -> None:
    out = tmp_path / "out"

    async def go() -> tuple[str, bool, bool]:
        app = make_app(isolated, out)
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f2")
            app.screen.query_one("#l-agents", Input).value = "agent-ace, agent-xyz"
            await press(pilot, "ctrl+b")
            said = str(app.screen.query_one("#launch-status", Static).render())
            first = isinstance(app.screen, RunScreen)
            await press(pilot, "ctrl+b")  # named once: a second ctrl+b runs it anyway
            screen = app.screen
            second = isinstance(screen, RunScreen)
            if isinstance(screen, RunScreen):
                screen.cancel_answered(True)
                await settle(pilot)
            return said, first, second

    said, first, second = asyncio.run(go())
    assert (
        "agent-xyz" in said
        and "plain chat model" in said
        and "agent-ace" not in said.split("known")[0]
    )
    assert not first and second


def test_a_bad_spec_file_is_refused_on_launch(isolated: ProfileStore, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[run]\nname = "x"\nconcurrency = "many"\n')

    async def go() -> tuple[str, bool]:
        app = make_app(isolated, tmp_path / "out")
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "f2")
            app.screen.query_one("#l-spec", Input).value = str(bad)
            await press(pilot, "ctrl+r")
            said = str(app.screen.query_one("#launch-status", Static).render())
            return said, isinstance(app.screen, RunScreen)

    said, started = asyncio.run(go())
    assert said.startswith("not started: ") and str(bad) in said and not started


@pytest.mark.parametrize("previous", [None, b"# the spec of the run in this directory\n"])
def test_a_form_run_refused_for_another_specs_out_says_the_apps_way_and_writes_nothing(
    isolated: ProfileStore, tmp_path: Path, previous: bytes | None
) -> None:
    """The refusal names what to do in the app (it has no --new-run), and the spec file the
    form wrote is taken back: removed, or the one that was there put back."""
    out = tmp_path / "out"
    store = AuditStore(out / "audit.db")
    store.create_run("other-run", "0123456789abcdef", {})
    store.close()
    if previous is not None:
        (out / SPEC_NAME).write_bytes(previous)

    async def go() -> str:
        app = make_app(isolated, out)
        async with app.run_test(size=SIZE) as pilot:
            return await run_from_launch(pilot, app, "ctrl+b", "the refused run to end")

    stats = asyncio.run(go())
    assert f"run failed: {out} holds run other-run from a different spec" in stats, stats
    assert "choose another output dir on Launch (nothing was written)" in stats
    assert "--new-run" not in stats
    if previous is None:
        assert not (out / SPEC_NAME).exists()
    else:
        assert (out / SPEC_NAME).read_bytes() == previous

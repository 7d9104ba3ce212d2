from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from judgeaudit.analysis.report_memo import SWITCH as REPORT_MEMO
from judgeaudit.profiles.shadowing import CLAUDE_ROUTERS, CLAUDE_TOKENS
from judgeaudit.profiles.store import ProfileStore
from tests.cli_helpers import make_world, world_env
from tests.helpers import sim_server
from tests.memkeyring import MemoryKeyring


@pytest.fixture(scope="session", autouse=True)
def own_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The column check's memo (audit/store/check_memo.py) in a directory of the test session,
    never the user's cache; inherited by the CLI processes the tests start. The report memo
    (analysis/report_memo.py) is off: tests that spy on an engine expect it computed again;
    tests/integration/test_report_memo.py turns it on."""
    previous = {name: os.environ.get(name) for name in ("JUDGEAUDIT_CACHE_DIR", REPORT_MEMO)}
    os.environ["JUDGEAUDIT_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    os.environ[REPORT_MEMO] = "0"
    yield
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session", autouse=True)
def children_hear_ctrl_c() -> None:
    """A pytest-xdist worker started from a background job ignores SIGINT, and an ignored signal
    stays ignored in every process it starts: the tests that press Ctrl-C on a run (SIGINT to
    the CLI) then saw it run on. A handled signal is reset to its default at exec, so handling
    it here gives the children the terminal's Ctrl-C again."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


#: Prints the private keyring session's variables, then waits for its stdin to close.
_KEYRING_SESSION = (
    "import json, os, sys\n"
    "names = [n for n in os.environ if n == 'DBUS_SESSION_BUS_ADDRESS' or n.startswith('GNOME_')]\n"
    "print(json.dumps({n: os.environ[n] for n in names}), flush=True)\n"
    "sys.stdin.read()\n"
)


@pytest.fixture(scope="session", autouse=True)
def own_keyring_per_worker() -> Iterator[None]:
    """Under pytest-xdist each worker gets a Secret Service of its own (scripts/with-keyring.sh
    again, for as long as the worker lives): keyring tests share item names (the bundled
    ``imported-keys`` item is read, changed and written back whole), so two workers on one
    keyring would undo each other's keys. One process (``-n 0``) keeps the outer keyring."""
    if not (os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("JUDGEAUDIT_SECRET_SERVICE")):
        yield
        return
    script = Path(__file__).resolve().parents[1] / "scripts" / "with-keyring.sh"
    outer = {k: v for k, v in os.environ.items() if k not in ("JUDGEAUDIT_PRIVATE_DBUS",)}
    session = subprocess.Popen(
        [str(script), sys.executable, "-c", _KEYRING_SESSION],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=outer,
    )  # fmt: skip
    assert session.stdin is not None and session.stdout is not None
    variables: dict[str, str] = json.loads(session.stdout.readline() or "{}")
    assert "DBUS_SESSION_BUS_ADDRESS" in variables, "the worker's keyring session did not start"
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        session.stdin.close()
        session.wait(timeout=60)


@pytest.fixture(scope="session")
def sim_url() -> Iterator[str]:
    with sim_server() as url:
        yield url


@pytest.fixture(params=["sdk", "direct"])
def transport(request: pytest.FixtureRequest) -> str:
    """The llm layer's two transports (the openai SDK, the direct aiohttp path for local
    endpoints): a test that takes this runs on both, proving they behave the same."""
    return str(request.param)


@pytest.fixture
def secret_service() -> None:
    """Tests that need the real Secret Service run inside scripts/with-keyring.sh."""
    if not os.environ.get("JUDGEAUDIT_SECRET_SERVICE"):
        if os.environ.get("CI"):
            pytest.fail("CI must run the suite through scripts/with-keyring.sh (Secret Service)")
        pytest.skip("needs scripts/with-keyring.sh (a private D-Bus session with gnome-keyring)")


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ProfileStore]:
    """The one isolation fixture: the world of :func:`tests.cli_helpers.world_env` under
    ``tmp_path`` (config, Claude and Codex homes, managed settings, HOME, XDG), no Claude token
    or router variables from the machine, an in-memory keyring, and ``tmp_path`` as cwd."""
    make_world(tmp_path)
    for name, value in world_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    for variable in (*CLAUDE_TOKENS, *CLAUDE_ROUTERS, "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    monkeypatch.chdir(tmp_path)
    yield ProfileStore.default()
    keyring.set_keyring(previous)

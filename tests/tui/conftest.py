"""TUI test fixtures: an isolated config, an in-memory keyring, and one small real audit run."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from judgeaudit.audit.runner import AuditRunner
from judgeaudit.audit.spec import load_spec
from judgeaudit.profiles.store import ProfileStore
from tests.audit_helpers import write_spec
from tests.memkeyring import MemoryKeyring

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ProfileStore]:
    for name in ("cfg", "claude", "codex"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("JUDGEAUDIT_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    monkeypatch.chdir(tmp_path)
    yield ProfileStore.default()
    keyring.set_keyring(previous)


@pytest.fixture(scope="session")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real audit (3 agents, the built-in tasks, embedded provider) to browse in the app."""
    base = tmp_path_factory.mktemp("tui-run")
    spec = write_spec(base / "spec.toml")
    asyncio.run(AuditRunner(load_spec(spec), base / "out").run())
    return base / "out"


@pytest.fixture
def run_copy(small_run: Path, tmp_path: Path) -> Path:
    """A private copy (review labels are written to the DB)."""
    target = tmp_path / "run"
    shutil.copytree(small_run, target)
    return target

"""Issue 19 item 8: ``codex resume --last`` after a gateway change, with the real Codex CLI.

Per gateway (the default) Codex files sessions under each gateway's provider id, so resuming on
another gateway starts afresh; after ``profile codex-history shared`` every profile writes the
same id and the resumed session carries its history to the new gateway.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.cli_helpers import cli_ok, tool, tool_env
from tests.contract.test_real_tools import npm_bin
from tests.helpers import sim_server


def _ja(env: dict[str, str], *args: str) -> str:
    return cli_ok(*args, env=env, whole_env=True).stdout


KEY_FLAGS = ("--model", "sim-chat", "--key-env", "HISTORY_TEST_KEY", "--option", "key_mode=env_key")


@pytest.fixture
def two_gateways(tmp_path: Path) -> Iterator[tuple[dict[str, str], Path]]:
    env = tool_env(tmp_path, HISTORY_TEST_KEY="fake-history-key")
    with ExitStack() as stack:
        for name in ("g1", "g2"):
            url = stack.enter_context(sim_server("--request-log", str(tmp_path / f"{name}.log")))
            _ja(env, "profile", "add", name, "--app", "codex", "--base-url", url, *KEY_FLAGS)
        yield env, tmp_path


def _codex(env: dict[str, str], tmp: Path, *args: str) -> None:
    done = tool(
        [npm_bin("codex"), "exec", "--skip-git-repo-check", *args],
        env=env,
        cwd=tmp / "work",
        timeout=180,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def _resume_roles(env: dict[str, str], tmp: Path) -> list[str]:
    _ja(env, "profile", "use", "g1")
    _codex(env, tmp, "first message PINEAPPLE")
    _ja(env, "profile", "use", "g2")
    _codex(env, tmp, "resume", "--last", "second message")
    lines = (tmp / "g2.log").read_text().splitlines()
    roles: list[str] = json.loads(lines[-1])["roles"]
    return roles


def test_per_gateway_ids_lose_the_session_on_another_gateway(
    two_gateways: tuple[dict[str, str], Path],
) -> None:
    env, tmp = two_gateways
    assert "assistant" not in _resume_roles(env, tmp)  # a fresh session: the default's cost


def test_shared_id_resumes_across_gateways(two_gateways: tuple[dict[str, str], Path]) -> None:
    env, tmp = two_gateways
    assert "provider id 'judgeaudit'" in _ja(env, "profile", "codex-history", "shared")
    roles = _resume_roles(env, tmp)
    assert roles.count("assistant") == 1 and roles[-1] == "user"  # the first turn came along
    assert "shared" in _ja(env, "profile", "codex-history")
    _ja(env, "profile", "codex-history", "per-gateway")
    _ja(env, "profile", "use", "g1")
    assert 'model_provider = "local-' in (tmp / "codex" / "config.toml").read_text()

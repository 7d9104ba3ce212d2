"""One engine entry for both front ends: the CLI and the app's run worker load, run, report and
fail through the same function, so a user sees the same outcome in either."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from judgeaudit.audit.runner import AuditRunner
from judgeaudit.audit.spec.endpoints import Endpoints
from judgeaudit.engine import RunIncomplete, run_audit
from judgeaudit.errors import JudgeauditError
from judgeaudit.llm.client import RetryPolicy
from judgeaudit.tui.bridge import RunBridge
from tests.audit_helpers import write_spec
from tests.cli_helpers import cli


@pytest.mark.parametrize(
    "body",
    [
        "[run\n",  # not TOML
        '[run]\nconcurency = 3\n[endpoints.sim]\nbase_url = "embedded"\n',  # unknown key
        '[run]\ntasks = "missing.jsonl"\n[endpoints.sim]\nbase_url = "embedded"\n'
        '[[agents]]\nmodel = "agent-ace"\nendpoint = "sim"\n'
        '[[agents]]\nmodel = "agent-weak"\nendpoint = "sim"\n'
        '[user_simulator]\nmodel = "user-default"\nendpoint = "sim"\n'
        '[judge]\nmodel = "judge-default"\nendpoint = "sim"\n',  # missing task file
    ],
)
def test_cli_and_app_report_the_same_one_line_error(tmp_path: Path, body: str) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(body, encoding="utf-8")
    done = cli("run", str(spec), "--out", str(tmp_path / "cli-out"))
    assert done.returncode == 2
    assert done.stderr.startswith("judgeaudit: ") and len(done.stderr.splitlines()) == 1
    bridge = RunBridge(spec, tmp_path / "app-out")
    bridge.run_blocking()
    batch = bridge.drain()
    assert batch.done and not batch.cancelled
    assert batch.error == done.stderr.strip().removeprefix("judgeaudit: ")


def test_engine_raises_only_its_error_family_on_bad_input(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text("[run\n", encoding="utf-8")
    with pytest.raises(JudgeauditError) as caught:
        asyncio.run(run_audit(spec, tmp_path / "out"))
    assert caught.value.exit_code == 2 and str(spec) in str(caught.value)
    assert not (tmp_path / "out").exists()


def _tight(runner: AuditRunner) -> None:
    """No HTTP retries, so a flaky agent leaves conversations undone on the first pass."""
    original = runner._endpoints

    @asynccontextmanager
    async def tight() -> AsyncIterator[Endpoints]:
        async with original() as endpoints:
            for client in endpoints.clients.values():
                client.retry = RetryPolicy(max_attempts=1, base_s=0.0, max_s=0.0)
            yield endpoints

    runner._endpoints = tight  # type: ignore[method-assign]


def test_incomplete_run_writes_its_report_then_raises_exit_4_and_the_app_shows_it(
    tmp_path: Path,
) -> None:
    spec = write_spec(tmp_path / "spec.toml", weak="agent-weak:rate_500=0.6")
    with pytest.raises(RunIncomplete) as caught:
        asyncio.run(run_audit(spec, tmp_path / "out", on_runner=_tight))
    assert caught.value.exit_code == 4
    assert "rerun the same command" in str(caught.value)
    assert (tmp_path / "out" / "report.html").exists()

    bridge = RunBridge(spec, tmp_path / "app-out")
    original_attach = bridge._attach

    def attach(runner: AuditRunner) -> None:
        original_attach(runner)
        _tight(runner)

    bridge._attach = attach  # type: ignore[method-assign]
    bridge.run_blocking()
    batch = bridge.drain()
    assert batch.error is None and batch.finished is not None
    assert not batch.finished.complete and bridge.simulated

"""Which client a command runs, told by what it is (an install laid out as npm and the native
installer lay it out); the real binaries are in tests/contract/test_exec_recognition.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from judgeaudit.profiles.toolid import Tool, identify


def _exe(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.fixture
def install(tmp_path: Path) -> Path:
    pkg = tmp_path / "node_modules" / "@anthropic-ai" / "claude-code"
    _exe(pkg / "bin" / "claude.exe", "#!/bin/sh\necho '2.1.332 (Claude Code)'\n")
    _exe(pkg / "cli-wrapper.cjs", "// launcher\n")
    _exe(tmp_path / "node_modules" / "@openai" / "codex" / "bin" / "codex.js", "// codex\n")
    native = tmp_path / "home" / ".local" / "share" / "claude" / "versions" / "2.1.332"
    _exe(native, "\x7fELF not really")
    return tmp_path


ENV = {"PATH": os.defpath, "ANTHROPIC_AUTH_TOKEN": "sk-must-not-reach-a-probe"}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["./claude-latest", "-p", "hi"], Tool("claude", 1, "npm package")),
        (["./codex-next", "exec"], Tool("codex", 1, "npm package")),
        (["./local-claude"], Tool("claude", 1, "native install")),
        (["npx", "@anthropic-ai/claude-code", "-p"], Tool("claude", 2, "npm package")),
        (["npx", "-y", "@anthropic-ai/claude-code@2.1.332", "-p"], Tool("claude", 3, "npm package")),
        (["npx", "--package=@anthropic-ai/claude-code", "claude", "-p"], Tool("claude", 3, "npm package")),
        (["npm", "exec", "--", "@anthropic-ai/claude-code", "-p"], Tool("claude", 4, "npm package")),
        (["npm", "exec", "@anthropic-ai/claude-code", "--", "-p"], Tool("claude", 4, "npm package")),
        (["bunx", "@openai/codex", "exec"], Tool("codex", 2, "npm package")),
        (["node", "node_modules/@anthropic-ai/claude-code/cli-wrapper.cjs", "-p"],
         Tool("claude", 2, "node script of the package")),
        (["npx", "cowsay", "claude"], Tool(None)),
        (["python", "app.py"], Tool(None)),
        (["node", "-e", "1"], Tool(None)),
    ],
)  # fmt: skip
def test_clients_are_recognised_by_what_they_are(
    install: Path, argv: list[str], expected: Tool
) -> None:
    (install / "claude-latest").symlink_to(
        install / "node_modules/@anthropic-ai/claude-code/bin/claude.exe"
    )
    (install / "codex-next").symlink_to(install / "node_modules/@openai/codex/bin/codex.js")
    (install / "local-claude").symlink_to(install / "home/.local/share/claude/versions/2.1.332")
    assert identify(argv, ENV, install) == expected


def test_a_claude_named_copy_or_a_wrapper_is_probed_without_keys(tmp_path: Path) -> None:
    seen = tmp_path / "probe-env"
    answer = f"env > {seen}\necho '2.1.332 (Claude Code)'\n"
    _exe(tmp_path / "claude-2.1.332", "#!/bin/sh\n" + answer)
    _exe(tmp_path / "cc", "#!/usr/bin/env bash\n# runs claude\n" + answer)
    for name in ("./claude-2.1.332", "./cc"):
        assert identify([name, "-p"], ENV, tmp_path) == Tool("claude", 1, "version probe")
        assert "sk-must-not-reach" not in seen.read_text()


def test_a_name_alone_is_not_enough_for_a_probe_to_say_yes(tmp_path: Path) -> None:
    _exe(tmp_path / "claude-helper", "#!/bin/sh\necho 'claude helper 1.0'\n")
    _exe(tmp_path / "deploy.sh", "#!/bin/sh\necho 'deploy'\n")  # mentions no client
    for name in ("./claude-helper", "./deploy.sh"):
        assert identify([name], ENV, tmp_path).app is None

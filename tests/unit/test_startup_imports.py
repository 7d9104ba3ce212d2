"""Start-up paths import only what they use (Claude Code and Codex run `key print` every time).

Each command runs in a fresh interpreter through the real entry point; at exit it reports which
modules were loaded, so a heavy import slipping back into a start-up path fails here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judgeaudit.cli import COMMANDS, build_parser

HEAVY = ("openai", "pandas", "aiohttp", "textual", "httpx2", "numpy")
ENGINE = ("judgeaudit.audit", "judgeaudit.llm", "judgeaudit.sim", "judgeaudit.analysis")
REPORT_MODULES = (
    "import atexit, json, sys\n"
    "def _report():\n"
    "    sys.__stderr__.write('MODULES ' + json.dumps(sorted(sys.modules)) + '\\n')\n"
    "atexit.register(_report)\n"
    "from judgeaudit.cli import main\n"
    "raise SystemExit(main(sys.argv[1:]))\n"
)


def loaded_modules(
    *args: str, env: dict[str, str] | None = None
) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    done = subprocess.run(
        [sys.executable, "-c", REPORT_MODULES, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("MODULES "))
    return set(json.loads(line.removeprefix("MODULES "))), done


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(
        m for m in modules if any(m == h or m.startswith(h + ".") for h in (*HEAVY, *ENGINE))
    )


@pytest.fixture
def no_keyring(tmp_path: Path) -> dict[str, str]:
    return {
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "JUDGEAUDIT_CONFIG_DIR": str(tmp_path / "cfg"),
    }


def test_key_print_imports_no_engine_and_no_heavy_library(no_keyring: dict[str, str]) -> None:
    modules, done = loaded_modules("key", "print", "some-key", env=no_keyring)
    assert done.returncode == 1  # no keyring here: a clear "not found", not a crash
    assert "judgeaudit.cli.key_cmds" in modules  # the command really ran
    assert heavy_in(modules) == []
    # Nor the profile model, TOML reading or the validation layer (8 ms of a 40 ms budget).
    assert not {"judgeaudit.profiles.model", "judgeaudit.validate", "judgeaudit.tomlfile"} & set(
        modules
    )


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("key", "--help")])
def test_version_and_help_import_no_command_group_beyond_their_own(
    args: tuple[str, ...], no_keyring: dict[str, str]
) -> None:
    modules, done = loaded_modules(*args, env=no_keyring)
    assert done.returncode == 0, done.stderr
    assert heavy_in(modules) == []
    if args[0].startswith("--"):
        entry = {"judgeaudit.cli", "judgeaudit.cli.scrubbed"}  # the entry and its stderr guard
        assert not any(m.startswith("judgeaudit.cli.") for m in modules if m not in entry)
        assert not any(m.startswith("judgeaudit.profiles") for m in modules)


def test_env_prints_exports_without_engine_imports(no_keyring: dict[str, str]) -> None:
    env = {**no_keyring, "BENCH_ONLY_KEY": "not-a-real-key-1234"}
    add = subprocess.run(
        [
            *(sys.executable, "-m", "judgeaudit", "profile", "add", "startup-sdk", "--app", "sdk"),
            *("--base-url", "http://127.0.0.1:9/v1", "--key-env", "BENCH_ONLY_KEY"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )
    assert add.returncode == 0, add.stderr
    modules, done = loaded_modules("env", "startup-sdk", env=env)
    assert done.returncode == 0, done.stderr
    assert "http://127.0.0.1:9/v1" in done.stdout
    assert heavy_in(modules) == []


def test_help_lists_every_command_with_the_help_its_module_registers() -> None:
    """The stubs that keep `--help` import-free must say what the real commands say."""
    for name, (_, help_text) in COMMANDS.items():
        parser = build_parser([name])
        sub = next(a for a in parser._actions if a.dest == "command")
        assert isinstance(sub, argparse._SubParsersAction)
        real = {a.dest: a.help for a in sub._choices_actions}
        assert real[name] == help_text, name
        assert sub.choices[name].add_help, f"{name} is still a stub after choosing it"

"""docs/cli.md's reference is the parser's own help, so it cannot go stale."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from judgeaudit.cli import COMMANDS
from tests.docs.links import ROOT

SCRIPT = ROOT / "scripts" / "gen_cli_docs.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli_docs", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_page_equals_the_generated_reference() -> None:
    gen = _generator()
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert gen.splice(page, gen.render()) == page, (
        "docs/cli.md is stale: run `.venv/bin/python scripts/gen_cli_docs.py --write`"
    )


def test_reference_covers_every_command_and_option() -> None:
    """Each command gets a section holding its full help, options included."""
    block = _generator().render()
    for command in COMMANDS:
        assert f"### `judgeaudit {command}`" in block, command
    assert "### `judgeaudit profile use`" in block
    assert "--fail-on-rise" in block and "--judge-prompt" in block and "--dry-run" in block


def test_check_mode_fails_on_a_stale_page(tmp_path: Path) -> None:
    """`gen_cli_docs.py --check` exits 1 and names the fix when the page differs."""
    copy = tmp_path / "scripts"
    copy.mkdir()
    (copy / "gen_cli_docs.py").write_text(SCRIPT.read_text(encoding="utf-8"), encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    gen = _generator()
    (docs / "cli.md").write_text(f"# CLI reference\n\n{gen.BEGIN}\nold\n{gen.END}\n", "utf-8")
    stale = subprocess.run(
        [sys.executable, str(copy / "gen_cli_docs.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert stale.returncode == 1
    assert "gen_cli_docs.py --write" in stale.stderr
    subprocess.run([sys.executable, str(copy / "gen_cli_docs.py"), "--write"], check=True)
    fresh = subprocess.run(
        [sys.executable, str(copy / "gen_cli_docs.py"), "--check"], capture_output=True, check=False
    )
    assert fresh.returncode == 0
    assert (docs / "cli.md").read_text("utf-8").startswith("# CLI reference\n\n")


def test_compare_margin_help_says_what_the_margin_decides() -> None:
    """The help said the margin is 'the rise that counts as worse', but 'worse' is any
    significant rise (a +14.6-point rise is worse at --margin 50); the margin only bounds
    'not worse' (docs/gate.md)."""
    block = _generator().render()
    section = block.split("### `judgeaudit compare`", 1)[1].split("### ", 1)[0]
    margin = " ".join(section.split("--margin POINTS", 2)[2].split())
    assert "counts as worse" not in margin
    assert "'not worse' rules out" in margin and "whatever the margin" in margin

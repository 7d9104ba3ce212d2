"""Drive the real app through a real demo run and write an SVG of every screen to screenshots/.

Uses a throwaway config dir and no keyring, so nothing of yours shows up. The SVGs name a
CJK-capable monospace font after Fira Code (CJK_FONTS), so the 近同/小差/中差/大差 bucket
labels render in a browser that has one of them (Noto Sans Mono CJK ships with most Linux
desktops; Sarasa Mono and WenQuanYi Zen Hei Mono are alternatives).
The Runs shots compare the demo with a `judgeaudit rejudge` of it written into the same
output directory (the docs' workflow): the run picker, the paired compare, its chart, the
flipped pairs and one flipped pair as both runs judged it. The keyring is an in-memory one, so
the Profiles screen shows what a user with a working keyring sees.
Usage: python scripts/screenshots.py [OUT_DIR]   (default: screenshots/)
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SIZE = (110, 34)
CJK_FONTS = '"Fira Code", "Noto Sans Mono CJK SC", "Sarasa Mono SC", "WenQuanYi Zen Hei Mono"'
TEXTUAL_FONTS = "font-family: Fira Code, monospace;"
REJUDGE_MODEL = "judge-default:diligence=0,evidence=0.2,style=0.8"


def with_cjk_font(svg: str) -> str:
    if TEXTUAL_FONTS not in svg:
        raise SystemExit("the SVG's font rule changed; update TEXTUAL_FONTS in this script")
    return svg.replace(TEXTUAL_FONTS, f"font-family: {CJK_FONTS}, monospace;")


async def settle(pilot: Any) -> None:
    """Every worker but the audit run done, and its effects painted."""
    app = pilot.app
    while True:
        await pilot.pause()
        pending = [w for w in app.workers if not w.is_finished and w.group != "audit"]
        if not pending:
            break
        await app.workers.wait_for_complete(pending)
    await pilot.pause()


async def until(pilot: Any, ready: Any) -> None:
    while not ready():
        await pilot.pause(0.2)
    await settle(pilot)


class ShotKeyring:
    """A keyring that works and holds nothing (built lazily: keyring is imported in main)."""

    @staticmethod
    def make() -> Any:
        from keyring.backend import KeyringBackend
        from keyring.errors import PasswordDeleteError

        class Memory(KeyringBackend):
            priority = 1  # type: ignore[assignment]

            def __init__(self) -> None:
                super().__init__()
                self.items: dict[tuple[str, str], str] = {}

            def get_password(self, service: str, username: str) -> str | None:
                return self.items.get((service, username))

            def set_password(self, service: str, username: str, password: str) -> None:
                self.items[(service, username)] = password

            def delete_password(self, service: str, username: str) -> None:
                if self.items.pop((service, username), None) is None:
                    raise PasswordDeleteError(username)

        return Memory()


async def main(out_dir: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="judgeaudit-shots-"))
    for name in ("cfg", "claude", "codex"):
        (scratch / name).mkdir()
    os.environ.update(
        {
            "JUDGEAUDIT_CONFIG_DIR": str(scratch / "cfg"),
            "CLAUDE_CONFIG_DIR": str(scratch / "claude"),
            "CODEX_HOME": str(scratch / "codex"),
        }
    )
    import keyring

    keyring.set_keyring(ShotKeyring.make())
    os.chdir(scratch)
    shutil.copytree(REPO / "examples", scratch / "examples")

    from judgeaudit.tui.app import JudgeAuditApp
    from judgeaudit.tui.drift_view import OVERALL
    from judgeaudit.tui.screens.run import RunScreen
    from judgeaudit.tui.screens.runs import RunsScreen
    from judgeaudit.tui.widgets.fit_table import FitTable
    from judgeaudit.tui.widgets.run_picker import RunPicker

    out_dir.mkdir(parents=True, exist_ok=True)
    app = JudgeAuditApp(demo_spec=Path("examples/demo.toml"), out_dir=Path("out/demo"), steady=True)

    async with app.run_test(size=SIZE) as pilot:

        async def shot(name: str, *keys: str) -> None:
            for key in keys:
                await pilot.press(key)
                await settle(pilot)
            (out_dir / f"{name}.svg").write_text(with_cjk_font(app.export_screenshot()))
            print(f"wrote {out_dir / name}.svg", file=sys.stderr)

        run = app.get_screen("run")
        assert isinstance(run, RunScreen)
        await settle(pilot)
        await shot("profiles")
        await shot("help", "question_mark")
        await shot("launch", "escape", "f2")
        await pilot.press("ctrl+g")
        await until(pilot, lambda: run.pairs_done > 0)  # judging under way
        await shot("run-live")
        await until(pilot, lambda: run.finished)
        await shot("run")
        await shot("results", "r")
        await shot("results-agent-pairs", "a")
        await shot("pairs", "enter", "m")
        await shot("pair", "enter")
        await shot("review", "f5")
        # a re-judge written into the same directory: the same conversations, judged again by
        # a judge that weighs style; blank B compares the directory's two runs (older as A)
        rejudge = [sys.executable, "-m", "judgeaudit", "rejudge", "out/demo", "--out",
                   "out/demo", "--judge-model", REJUDGE_MODEL, "--events", "jsonl"]  # fmt: skip
        await asyncio.to_thread(subprocess.run, rejudge, check=True, stdout=subprocess.DEVNULL)
        await pilot.press("f6")
        runs = app.get_screen("runs")
        assert isinstance(runs, RunsScreen)
        picker = runs.query_one(RunPicker)
        await until(pilot, lambda: picker.row_count == 2)
        await shot("runs", "ctrl+t")
        await shot("runs-paired", "g")
        await pilot.press("g")
        table = runs.query_one("#drift", FitTable)
        table.focus()
        table.put_cursor(OVERALL)
        await shot("flipped-pairs", "enter")
        await shot("flip", "enter")
    shutil.rmtree(scratch, ignore_errors=True)


def parse_args(argv: list[str]) -> Path:
    """The output folder: argparse, so `--help` prints help and an unknown option is refused
    (`--help` was taken as OUT_DIR and a `./--help/` folder written)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python scripts/screenshots.py",
        description="Drive the app through a demo run and write an SVG of every screen.",
    )
    parser.add_argument(
        "out_dir",
        nargs="?",
        type=Path,
        default=REPO / "screenshots",
        metavar="OUT_DIR",
        help="where the SVGs go (default: screenshots/ of the repository)",
    )
    return Path(parser.parse_args(argv).out_dir).resolve()


if __name__ == "__main__":
    asyncio.run(main(parse_args(sys.argv[1:])))

"""Drive the real app through a real demo run and write an SVG of every screen to screenshots/.

Uses a throwaway config dir and no keyring, so nothing of yours shows up. The SVGs name a
CJK-capable monospace font after Fira Code (CJK_FONTS), so the 近同/小差/中差/大差 bucket
labels render in a browser that has one of them (Noto Sans Mono CJK ships with most Linux
desktops; Sarasa Mono and WenQuanYi Zen Hei Mono are alternatives).
The last two show the paired compare of the demo with a `judgeaudit rejudge` of it.
Usage: python scripts/screenshots.py
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


async def main() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="judgeaudit-shots-"))
    for name in ("cfg", "claude", "codex"):
        (scratch / name).mkdir()
    os.environ.update(
        {
            "JUDGEAUDIT_CONFIG_DIR": str(scratch / "cfg"),
            "CLAUDE_CONFIG_DIR": str(scratch / "claude"),
            "CODEX_HOME": str(scratch / "codex"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        }
    )
    os.chdir(scratch)
    shutil.copytree(REPO / "examples", scratch / "examples")
    from textual.widgets import Input

    from judgeaudit.tui.app import JudgeAuditApp
    from judgeaudit.tui.screens.run import RunScreen
    from judgeaudit.tui.screens.runs import OVERALL, RunsScreen
    from judgeaudit.tui.widgets.fit_table import FitTable

    out_dir = REPO / "screenshots"
    out_dir.mkdir(exist_ok=True)
    app = JudgeAuditApp(demo_spec=Path("examples/demo.toml"), out_dir=Path("out/demo"), steady=True)

    async with app.run_test(size=SIZE) as pilot:

        async def shot(name: str, *keys: str) -> None:
            for key in keys:
                await pilot.press(key)
                await settle(pilot)
            (out_dir / f"{name}.svg").write_text(with_cjk_font(app.export_screenshot()))
            print(f"wrote screenshots/{name}.svg", file=sys.stderr)

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
        await shot("runs", "f6", "ctrl+t")
        # the paired compare: the same conversations judged again by a judge that weighs style
        rejudge = [sys.executable, "-m", "judgeaudit", "rejudge", "out/demo", "--out",
                   "out/demo-rejudged", "--judge-model", REJUDGE_MODEL, "--events", "jsonl"]  # fmt: skip
        await asyncio.to_thread(subprocess.run, rejudge, check=True, stdout=subprocess.DEVNULL)
        runs = app.get_screen("runs")
        assert isinstance(runs, RunsScreen)
        runs.query_one("#r-b", Input).value = "out/demo-rejudged"
        await shot("runs-paired", "ctrl+t")
        table = runs.query_one("#drift", FitTable)
        table.focus()
        table.put_cursor(OVERALL)
        await shot("flipped-pairs", "enter")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
